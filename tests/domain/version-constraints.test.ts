import { describe, expect, it } from 'vitest'
import { InvalidInputError } from '../../src-main/server/domain/core/errors.js'
import { terraformConstraint } from '../../src-main/server/domain/modules/versions/constraints.js'

const VERSIONS = ['0.9.0', '1.0.0', '1.2.0', '1.2.9', '1.3.0', '2.0.0', '5.0.0', '5.46.0', '6.0.0', '2.1.0-beta1']
const matching = (constraint: string) => VERSIONS.filter(terraformConstraint(constraint))

describe('Terraform version constraints', () => {
  it('reads ~> as Terraform does, not as node-semver’s tilde', () => {
    expect(matching('~> 5.0')).toEqual(['5.0.0', '5.46.0'])
    expect(matching('~> 1.2.0')).toEqual(['1.2.0', '1.2.9'])
    expect(matching('~> 1.2')).toEqual(['1.2.0', '1.2.9', '1.3.0'])
    expect(matching('~> 1')).toEqual(['1.0.0', '1.2.0', '1.2.9', '1.3.0', '2.0.0', '5.0.0', '5.46.0', '6.0.0'])
  })

  it('combines comparisons, exact versions and exclusions, and offers a prerelease only by name', () => {
    expect(matching('>= 1.2, < 2.0')).toEqual(['1.2.0', '1.2.9', '1.3.0'])
    expect(matching('1.2.9')).toEqual(['1.2.9'])
    expect(matching('= 1.2.9')).toEqual(['1.2.9'])
    expect(matching('>= 1.0, != 1.2.9, < 1.3')).toEqual(['1.0.0', '1.2.0'])
    expect(matching('>= 2.0')).toEqual(['2.0.0', '5.0.0', '5.46.0', '6.0.0'])
    expect(matching('2.1.0-beta1')).toEqual(['2.1.0-beta1'])
  })

  it('refuses what is not a constraint, in words', () => {
    for (const bad of ['latest', '>= ', '~> x.y', '1.2.3.4']) expect(() => terraformConstraint(bad)).toThrow(InvalidInputError)
  })
})
