import semver from 'semver'
import type { Impact, InterfaceChange, Step } from '../../../../shared/wire/modules.js'
import type { ModuleDocs, ModuleInput, ModuleOutput, ModulePart } from '../../archives/module-docs.js'

export interface InterfaceDiff {
  from: string
  to: string
  /** The largest impact among the changes. */
  impact: Impact
  step: Step
  changes: InterfaceChange[]
  /** When the step taken is smaller than the change needs: what to tell the publisher; else null. */
  verdict: string | null
}

const ORDER: Impact[] = ['none', 'additive', 'breaking']

/**
 * The change of a module's interface between two versions, from the documentation extracted at
 * ingest: inputs and outputs added, removed, renamed (likely), retyped, made required or given a
 * default, defaults changed; required Terraform and provider versions; submodules. Each change is
 * classed by what it does to a caller (breaking, additive or none), and the whole is compared with
 * the semantic-version step taken, as no registry does at publish time.
 */
export function diffInterfaces(from: { version: string; docs: ModuleDocs }, to: { version: string; docs: ModuleDocs }): InterfaceDiff {
  const changes = [...diffPart(from.docs.root, to.docs.root)]
  const before = new Map(from.docs.submodules.map((part) => [part.path, part]))
  const after = new Map(to.docs.submodules.map((part) => [part.path, part]))
  for (const [path, part] of before) {
    const next = after.get(path)
    if (!next) changes.push({ impact: 'breaking', kind: 'submodule-removed', part: path, detail: `removes submodule \`${path}\`` })
    else changes.push(...diffPart(part, next))
  }
  for (const path of after.keys()) {
    if (!before.has(path)) changes.push({ impact: 'additive', kind: 'submodule-added', part: path, detail: `adds submodule \`${path}\`` })
  }
  const impact = changes.reduce<Impact>((worst, change) => (ORDER.indexOf(change.impact) > ORDER.indexOf(worst) ? change.impact : worst), 'none')
  const step = stepOf(from.version, to.version)
  return { from: from.version, to: to.version, impact, step, changes, verdict: verdictOf(to.version, step, impact, changes) }
}

function diffPart(from: ModulePart, to: ModulePart): InterfaceChange[] {
  const part = to.path
  const at = (detail: string) => (part ? `${detail} in \`${part}\`` : detail)
  const changes: InterfaceChange[] = []
  const add = (impact: Impact, kind: string, detail: string) => changes.push({ impact, kind, part, detail: at(detail) })

  // Inputs.
  const inputsBefore = new Map(from.inputs.map((input) => [input.name, input]))
  const inputsAfter = new Map(to.inputs.map((input) => [input.name, input]))
  const removedInputs = from.inputs.filter((input) => !inputsAfter.has(input.name))
  const addedInputs = to.inputs.filter((input) => !inputsBefore.has(input.name))
  for (const [old, renamed] of likelyRenames(removedInputs, addedInputs, sameInput)) {
    add('breaking', 'input-renamed', `renames input \`${old.name}\` to \`${renamed.name}\` (likely)`)
  }
  for (const input of removedInputs) add('breaking', 'input-removed', `removes input \`${input.name}\``)
  for (const input of addedInputs) {
    if (input.required) add('breaking', 'input-added', `adds required input \`${input.name}\``)
    else add('additive', 'input-added', `adds input \`${input.name}\``)
  }
  for (const [name, after] of inputsAfter) {
    const before = inputsBefore.get(name)
    if (!before) continue
    if (normalType(before.type) !== normalType(after.type)) add('breaking', 'input-type', `changes the type of input \`${name}\` from \`${before.type || 'any'}\` to \`${after.type || 'any'}\``)
    if (!before.required && after.required) add('breaking', 'input-required', `makes input \`${name}\` required (it had a default)`)
    else if (before.required && !after.required) add('additive', 'input-optional', `gives input \`${name}\` a default`)
    else if (!after.required && normalValue(before.default) !== normalValue(after.default)) {
      // A caller that leaves the input unset gets the new value at its next apply, unasked: it can replace resources.
      add('breaking', 'input-default', `changes the default of input \`${name}\` from \`${shorten(before.default)}\` to \`${shorten(after.default)}\` (callers that leave it unset get the new value)`)
    }
  }

  // Outputs.
  const outputsAfter = new Set(to.outputs.map((output) => output.name))
  const outputsBefore = new Set(from.outputs.map((output) => output.name))
  const removedOutputs = from.outputs.filter((output) => !outputsAfter.has(output.name))
  const addedOutputs = to.outputs.filter((output) => !outputsBefore.has(output.name))
  for (const [old, renamed] of likelyRenames(removedOutputs, addedOutputs, sameOutput)) {
    add('breaking', 'output-renamed', `renames output \`${old.name}\` to \`${renamed.name}\` (likely)`)
  }
  for (const output of removedOutputs) add('breaking', 'output-removed', `removes output \`${output.name}\``)
  for (const output of addedOutputs) add('additive', 'output-added', `adds output \`${output.name}\``)

  // Required Terraform version.
  const coreBefore = from.requiredCore.join(', ')
  const coreAfter = to.requiredCore.join(', ')
  if (coreBefore !== coreAfter) {
    const raised = compareMinimum(coreBefore, coreAfter) > 0
    add(raised ? 'breaking' : 'none', 'terraform-version', `requires Terraform \`${coreAfter || 'any'}\` (was \`${coreBefore || 'any'}\`)`)
  }

  // Providers.
  const providerKey = (provider: { source: string; name: string }) => provider.source || provider.name
  const providersBefore = new Map(from.providers.map((provider) => [providerKey(provider), provider]))
  for (const provider of to.providers) {
    const before = providersBefore.get(providerKey(provider))
    if (!before) {
      add('additive', 'provider-added', `requires provider \`${providerKey(provider)}\`${provider.version ? ` \`${provider.version}\`` : ''}`)
    } else if (before.version !== provider.version) {
      const raised = compareMinimum(before.version, provider.version) > 0
      add(raised ? 'breaking' : 'none', 'provider-version', `requires provider \`${providerKey(provider)}\` \`${provider.version || 'any'}\` (was \`${before.version || 'any'}\`)`)
    }
  }
  for (const [key] of providersBefore) {
    if (!to.providers.some((provider) => providerKey(provider) === key)) add('none', 'provider-removed', `no longer requires provider \`${key}\``)
  }
  return changes
}

/**
 * Pairs of a removed and an added item that are likely the same thing renamed (same type, and the
 * same description or default), taken out of both lists.
 */
function likelyRenames<T extends { name: string }>(removed: T[], added: T[], same: (a: T, b: T) => boolean): Array<[T, T]> {
  const pairs: Array<[T, T]> = []
  for (const old of [...removed]) {
    const index = added.findIndex((candidate) => same(old, candidate))
    if (index === -1) continue
    pairs.push([old, added[index]!])
    added.splice(index, 1)
    removed.splice(removed.indexOf(old), 1)
  }
  return pairs
}

function sameInput(a: ModuleInput, b: ModuleInput): boolean {
  if (normalType(a.type) !== normalType(b.type) || a.required !== b.required) return false
  return (a.description !== '' && a.description === b.description) || (a.default !== '' && normalValue(a.default) === normalValue(b.default) && a.default !== 'null')
}

function sameOutput(a: ModuleOutput, b: ModuleOutput): boolean {
  return a.description !== '' && a.description === b.description
}

const normalType = (type: string) => type.replace(/\s+/g, '')
const normalValue = (value: string) => value.replace(/\s+/g, '')
const shorten = (value: string) => {
  const flat = value.replace(/\s+/g, ' ')
  return flat.length > 60 ? `${flat.slice(0, 57)}…` : flat
}

/**
 * Compares the lowest versions two Terraform constraints allow (`>= 1.3, < 2.0`, `~> 5.0`, `1.2.3`):
 * positive when the second asks for a newer minimum. Only lower bounds matter to a caller that
 * already runs a version the first allowed.
 */
function compareMinimum(before: string, after: string): number {
  const minimum = (constraint: string) => {
    let lowest = '0.0.0'
    for (const part of constraint.split(',')) {
      const match = /^\s*(>=|~>|=|>)?\s*v?(\d+(?:\.\d+){0,2})/.exec(part)
      if (!match) continue
      const version = semver.coerce(match[2])?.version
      if (version && semver.gt(version, lowest)) lowest = version
    }
    return lowest
  }
  return semver.compare(minimum(after), minimum(before))
}

function stepOf(from: string, to: string): Step {
  const a = semver.parse(from)
  const b = semver.parse(to)
  if (!a || !b) return 'none'
  const order = semver.compare(a, b)
  if (order > 0) return 'downgrade'
  if (order === 0) return 'none'
  if (b.major !== a.major) return 'major'
  if (b.minor !== a.minor) return 'minor'
  if (b.patch !== a.patch) return 'patch'
  return 'prerelease'
}

/**
 * What to tell the publisher when the step is smaller than the change: a breaking change needs a
 * new major version (below 1.0.0, where anything may change, at least a new minor one), new
 * interface a new minor one.
 */
function verdictOf(to: string, step: Step, impact: Impact, changes: InterfaceChange[]): string | null {
  const stable = (semver.parse(to)?.major ?? 0) >= 1
  const breakingAllowed = step === 'major' || step === 'prerelease' || (!stable && step === 'minor')
  const first = (wanted: Impact) => {
    const matching = changes.filter((change) => change.impact === wanted)
    return `${matching[0]!.detail}${matching.length > 1 ? ` (and ${matching.length - 1} more)` : ''}`
  }
  if (impact === 'breaking' && !breakingAllowed && (step === 'minor' || step === 'patch')) {
    return `${to} ${first('breaking')}: that is a breaking change in a ${step} release.`
  }
  if (impact === 'additive' && step === 'patch' && stable) {
    return `${to} ${first('additive')}: that is new interface in a patch release (a minor release says so).`
  }
  return null
}
