import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it, onTestFinished } from 'vitest'
import { hclString, moduleBlock } from '../../src-main/shared/module-usage.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM } from '../helpers/terraform-binary.js'

const run = promisify(execFile)
const VPC = { hostname: 'homeport.localhost', namespace: 'acme', name: 'vpc', provider: 'aws', version: '5.8.1' }
const REQUIRED = [
  { name: 'name', type: 'string' },
  { name: 'azs', type: 'list(string)' },
  { name: 'enable_nat_gateway', type: 'bool' },
  { name: 'tags', type: 'map(string)' },
  { name: 'subnet_spec', type: 'object({\n    cidr = string\n    public = bool\n  })' },
  { name: 'count_of_things', type: 'number' },
  { name: 'anything', type: '' }
]

describe('the usage block a module page offers', () => {
  it('is the source and version alone for a module without required inputs, and names a part by its folder', () => {
    expect(moduleBlock(VPC)).toBe('module "vpc" {\n  source  = "homeport.localhost/acme/vpc/aws"\n  version = "5.8.1"\n}\n')
    expect(moduleBlock({ ...VPC, part: 'modules/vpc-endpoints' })).toContain('module "vpc-endpoints" {\n  source  = "homeport.localhost/acme/vpc/aws//modules/vpc-endpoints"')
  })

  it('fills each required input with an empty value of its type, the type beside it, equals signs aligned', () => {
    expect(moduleBlock(VPC, REQUIRED)).toBe(
      [
        'module "vpc" {',
        '  source  = "homeport.localhost/acme/vpc/aws"',
        '  version = "5.8.1"',
        '',
        '  # Required inputs',
        '  name               = ""    # string',
        '  azs                = []    # list(string)',
        '  enable_nat_gateway = false # bool',
        '  tags               = {}    # map(string)',
        '  subnet_spec        = {}    # object({ cidr = string public = bool })',
        '  count_of_things    = 0     # number',
        '  anything           = null  # any type',
        '}',
        ''
      ].join('\n')
    )
  })

  it('quotes what is typed for a string, and takes any other value or a reference as an expression', () => {
    const block = moduleBlock(VPC, [
      { name: 'name', type: 'string', value: 'main "prod" ${env}' },
      { name: 'region', type: 'string', value: 'var.region' },
      { name: 'azs', type: 'list(string)', value: '["eu-west-1a", "eu-west-1b"]' },
      { name: 'cidr', type: 'string', value: '   ' }
    ])
    expect(block).toContain('  name   = "main \\"prod\\" $${env}"\n')
    expect(block).toContain('  region = var.region\n')
    expect(block).toContain('  azs    = ["eu-west-1a", "eu-west-1b"]\n')
    expect(block).toContain('  cidr   = "" # string\n')
    expect(hclString('a\\b\n%{ if }')).toBe('"a\\\\b\\n%%{ if }"')
  })

  it.skipIf(!HAS_TERRAFORM)(`is what terraform fmt leaves unchanged${NEEDS_TERRAFORM}`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'homeport-usage-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    // A typed value in the middle breaks the run of comments, as fmt's alignment does.
    const block = moduleBlock(VPC, [...REQUIRED.slice(0, 3), { name: 'cidr', type: 'string', value: '10.0.0.0/16 ${x}' }, ...REQUIRED.slice(3)])
    await writeFile(join(dir, 'main.tf'), block)
    await run('terraform', ['fmt', '-no-color', dir], { env: { ...process.env, CHECKPOINT_DISABLE: '1' } })
    expect(await readFile(join(dir, 'main.tf'), 'utf8')).toBe(block)
  })
})
