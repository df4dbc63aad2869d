import type { Route } from '../../lib/router'
import type { AuditTrailEvent } from './api'

/** What each action did, as a verb in the past. */
const DONE: Record<string, string> = {
  create: 'created',
  update: 'changed',
  destroy: 'deleted',
  upload: 'uploaded',
  deprecate: 'deprecated',
  undeprecate: 'undeprecated',
  revoke: 'revoked',
  unrevoke: 'unrevoked',
  approve: 'approved',
  mirror: 'mirrored',
  import: 'imported',
  resync: 'resynced',
  retry: 'retried'
}

/** What each kind of resource is called in a sentence. */
const KINDS: Record<string, string> = {
  organization: 'the organization',
  team: 'team',
  'authentication-token': '',
  'registry-module': 'module',
  'registry-module-version': 'version',
  'registry-provider': 'provider',
  'registry-provider-version': 'provider version',
  'registry-provider-platform': 'provider file',
  'gpg-key': 'signing key',
  'oauth-client': 'git connection',
  'gate-rule': 'gate rule',
  'gate-policy': 'gate policy',
  'gate-request': 'request to let in',
  'mirrored-provider': 'mirrored provider',
  'upstream-version': 'upstream version',
  bundle: 'bundle',
  'module-sharing': 'module sharing',
  'data-retention-policy': 'retention policy',
  'site-setting': 'setting'
}

/** An event in words: what was done, to what, and where that is in the GUI when it has a page. */
export interface EventWords {
  /** `deleted`, or `tried to delete` for a refusal. */
  verb: string
  /** `public module terraform-aws-modules/vpc/aws`, `version acme/vpc/aws 1.0.0`. */
  kind: string
  name: string
  to?: Route
}

/** An audit event in words, read against the organization whose trail it is (so a curated public module says so). */
export function eventWords(event: AuditTrailEvent, org: string): EventWords {
  const { action, type, meta } = event.resource
  const done = DONE[action] ?? action
  const verb = meta.outcome === 'refused' ? `tried to ${action === 'destroy' ? 'delete' : action === 'update' ? 'change' : action}` : done
  const module = /^([^/\s]+)\/([^/\s]+)\/([^/\s]+)(?: (\S+))?$/.exec(meta.name)
  if ((type === 'registry-module' || type === 'registry-module-version') && module) {
    const [, namespace, name, provider, version] = module as unknown as [string, string, string, string, string | undefined]
    const registry = namespace === org ? 'private' : 'public'
    const kind = `${registry === 'public' ? 'public ' : ''}${type === 'registry-module' ? 'module' : 'module version'}`
    return { verb, kind, name: meta.name, to: { page: 'module', org, registry, namespace, name, provider, ...(version ? { version } : {}) } }
  }
  const provider = /^([^/\s]+)\/([^/\s]+)/.exec(meta.name)
  if (type.startsWith('registry-provider') && provider && provider[1] === org) {
    return { verb, kind: KINDS[type] ?? type, name: meta.name, to: { page: 'provider', org, name: provider[2]! } }
  }
  return { verb, kind: KINDS[type] ?? type.replace(/-/g, ' '), name: meta.name }
}
