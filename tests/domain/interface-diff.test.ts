import { describe, expect, it } from 'vitest'
import { diffInterfaces } from '../../src-main/server/domain/modules/versions/interface-diff.js'
import type { ModuleDocs, ModuleInput, ModulePart } from '../../src-main/server/domain/archives/module-docs.js'

const input = (name: string, fields: Partial<ModuleInput> = {}): ModuleInput => ({ name, type: 'string', description: '', default: '', required: true, sensitive: false, ...fields })
const part = (fields: Partial<ModulePart> = {}): ModulePart => ({
  path: '',
  readme: '',
  empty: false,
  inputs: [],
  outputs: [],
  resources: [],
  providers: [],
  dependencies: [],
  requiredCore: [],
  ...fields
})
const docs = (root: Partial<ModulePart>, submodules: ModulePart[] = []): ModuleDocs => ({ description: '', root: part(root), submodules, examples: [], warnings: [] })
const output = (name: string, description = '') => ({ name, description, sensitive: false })

/** A vpc-like module at 1.3.0. */
const base = docs(
  {
    inputs: [
      input('cidr', { description: 'The IPv4 CIDR block for the VPC.' }),
      input('azs', { type: 'list(string)', description: 'Availability zones.', default: '[]', required: false }),
      input('enable_nat_gateway', { type: 'bool', description: 'Provision NAT gateways.', default: 'false', required: false }),
      input('tags', { type: 'map(string)', description: 'Tags for every resource.', default: '{}', required: false })
    ],
    outputs: [output('vpc_id', 'The ID of the VPC'), output('vpc_arn', 'The ARN of the VPC'), output('nat_ids', 'NAT gateway IDs')],
    providers: [{ name: 'aws', namespace: 'hashicorp', source: 'hashicorp/aws', version: '>= 5.0' }],
    requiredCore: ['>= 1.3']
  },
  [part({ path: 'modules/subnet', inputs: [input('vpc_id')] })]
)

describe('the interface diff', () => {
  it('finds nothing between a version and itself', () => {
    expect(diffInterfaces({ version: '1.3.0', docs: base }, { version: '1.3.1', docs: base })).toMatchObject({ impact: 'none', step: 'patch', changes: [], verdict: null })
  })

  it('calls a removed output in a minor release what it is', () => {
    const next = docs({ ...base.root, outputs: base.root.outputs.filter((entry) => entry.name !== 'vpc_arn') }, base.submodules)
    const diff = diffInterfaces({ version: '1.3.0', docs: base }, { version: '1.4.0', docs: next })
    expect(diff.changes).toEqual([{ impact: 'breaking', kind: 'output-removed', part: '', detail: 'removes output `vpc_arn`' }])
    expect(diff.verdict).toBe('1.4.0 removes output `vpc_arn`: that is a breaking change in a minor release.')
    expect(diffInterfaces({ version: '1.3.0', docs: base }, { version: '2.0.0', docs: next }).verdict).toBeNull()
    // Below 1.0.0, a minor release may break; a patch release still may not.
    expect(diffInterfaces({ version: '0.25.0', docs: base }, { version: '0.26.0', docs: next }).verdict).toBeNull()
    expect(diffInterfaces({ version: '0.25.0', docs: base }, { version: '0.25.1', docs: next }).verdict).toMatch(/breaking change in a patch release/)
  })

  it('calls a changed default what it is for callers that leave the input unset: a breaking change', () => {
    const next = docs({ ...base.root, inputs: base.root.inputs.map((entry) => (entry.name === 'enable_nat_gateway' ? { ...entry, default: 'true' } : entry)) }, base.submodules)
    expect(diffInterfaces({ version: '1.3.0', docs: base }, { version: '1.4.0', docs: next }).verdict).toBe(
      '1.4.0 changes the default of input `enable_nat_gateway` from `false` to `true` (callers that leave it unset get the new value): that is a breaking change in a minor release.'
    )
  })

  it('tells renames, retypes, new required inputs, defaults and requirements apart', () => {
    const next = docs(
      {
        inputs: [
          input('vpc_cidr', { description: 'The IPv4 CIDR block for the VPC.' }),
          input('azs', { type: 'set(string)', description: 'Availability zones.', default: '[]', required: false }),
          input('enable_nat_gateway', { type: 'bool', description: 'Provision NAT gateways.', default: 'true', required: false }),
          input('tags', { type: 'map(string)', description: 'Tags for every resource.', required: true }),
          input('name', { description: 'Name prefix.' }),
          input('enable_ipv6', { type: 'bool', default: 'false', required: false })
        ],
        outputs: [output('vpc_id', 'The ID of the VPC'), output('vpc_arn', 'The ARN of the VPC'), output('natgw_ids', 'NAT gateway IDs'), output('igw_id')],
        providers: [
          { name: 'aws', namespace: 'hashicorp', source: 'hashicorp/aws', version: '>= 5.46' },
          { name: 'random', namespace: 'hashicorp', source: 'hashicorp/random', version: '' }
        ],
        requiredCore: ['>= 1.5.7']
      },
      [part({ path: 'modules/subnet', inputs: [input('vpc_id')] }), part({ path: 'modules/endpoints' })]
    )
    const diff = diffInterfaces({ version: '1.3.0', docs: base }, { version: '2.0.0', docs: next })
    expect(diff.changes.map((change) => `${change.impact}: ${change.detail}`)).toEqual([
      'breaking: renames input `cidr` to `vpc_cidr` (likely)',
      'breaking: adds required input `name`',
      'additive: adds input `enable_ipv6`',
      'breaking: changes the type of input `azs` from `list(string)` to `set(string)`',
      'breaking: changes the default of input `enable_nat_gateway` from `false` to `true` (callers that leave it unset get the new value)',
      'breaking: makes input `tags` required (it had a default)',
      'breaking: renames output `nat_ids` to `natgw_ids` (likely)',
      'additive: adds output `igw_id`',
      'breaking: requires Terraform `>= 1.5.7` (was `>= 1.3`)',
      'breaking: requires provider `hashicorp/aws` `>= 5.46` (was `>= 5.0`)',
      'additive: requires provider `hashicorp/random`',
      'additive: adds submodule `modules/endpoints`'
    ])
    expect(diff).toMatchObject({ impact: 'breaking', step: 'major', verdict: null })
  })

  it('names the submodule a change is in, and a removed submodule', () => {
    const next = docs(base.root, [])
    expect(diffInterfaces({ version: '1.3.0', docs: base }, { version: '1.3.1', docs: next }).verdict).toBe(
      '1.3.1 removes submodule `modules/subnet`: that is a breaking change in a patch release.'
    )
    const widened = docs(base.root, [part({ path: 'modules/subnet', inputs: [input('vpc_id'), input('name', { default: '""', required: false })] })])
    const diff = diffInterfaces({ version: '1.3.0', docs: base }, { version: '1.3.1', docs: widened })
    expect(diff.changes).toEqual([{ impact: 'additive', kind: 'input-added', part: 'modules/subnet', detail: 'adds input `name` in `modules/subnet`' }])
    expect(diff.verdict).toBe('1.3.1 adds input `name` in `modules/subnet`: that is new interface in a patch release (a minor release says so).')
  })

  it('does not call a lower minimum a breaking change, nor a comparison backwards a release', () => {
    const relaxed = docs({ ...base.root, requiredCore: ['>= 1.0, < 2.0'] }, base.submodules)
    const diff = diffInterfaces({ version: '1.3.0', docs: base }, { version: '1.3.1', docs: relaxed })
    expect(diff.changes).toEqual([{ impact: 'none', kind: 'terraform-version', part: '', detail: 'requires Terraform `>= 1.0, < 2.0` (was `>= 1.3`)' }])
    expect(diffInterfaces({ version: '2.0.0', docs: base }, { version: '1.0.0', docs: relaxed })).toMatchObject({ step: 'downgrade', verdict: null })
  })
})
