import type { GpgKeyRecord, OrganizationRecord } from '../../store/records.js'
import { UniqueConstraintError } from '../../store/errors.js'
import { BY_ORGANIZATION, GPG_KEY, ORGANIZATION_NAME, organizationNameKey, type Store } from '../../store/port.js'
import { type Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import { ForbiddenError, InvalidInputError, NotFoundError } from '../core/errors.js'
import { newId, now } from '../core/ids.js'
import type { AuditResource, AuditTrailService } from '../organizations/audit-trail.js'
import { publicKeyId } from './release-files.js'

/** A key with the organization whose name is its namespace. */
export interface GpgKeyView {
  org: OrganizationRecord
  key: GpgKeyRecord
}

/**
 * The GPG keys that sign providers (HCP Terraform's `gpg-keys`), scoped to a namespace: an
 * organization's name. Any team of the organization reads them; owners and teams that manage
 * modules add, move and delete them. The key id is computed from the key, never taken from the
 * caller; one organization holds a key id once, and several organizations may hold the same key.
 */
export class GpgKeyService {
  constructor(
    private readonly store: Store,
    private readonly audit: AuditTrailService
  ) {}

  /** The keys of the namespaces the caller may read among `namespaces`; refused when it may read none. */
  async list(caller: Caller, namespaces: string[]): Promise<GpgKeyView[]> {
    if (namespaces.length === 0) throw new InvalidInputError('filter[namespace] names the namespaces whose keys to list.', '/filter[namespace]')
    const orgs: OrganizationRecord[] = []
    for (const namespace of namespaces) {
      const org = await this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(namespace))
      if (org && authorize(caller, 'read gpg keys', org)) orgs.push(org)
    }
    if (orgs.length === 0) throw new ForbiddenError(`namespace not authorized: you may read the keys of none of ${namespaces.join(', ')}`)
    const views: GpgKeyView[] = []
    for (const org of orgs) for (const key of await this.store.gpgKeys.listBy(BY_ORGANIZATION, org.id)) views.push({ org, key })
    return views.sort((a, b) => a.key.createdAt.localeCompare(b.key.createdAt))
  }

  async create(caller: Caller, namespace: string | undefined, asciiArmor: string | undefined): Promise<GpgKeyView> {
    if (!namespace) throw new InvalidInputError('A GPG key needs the namespace (organization) it signs for.', 'namespace')
    if (!asciiArmor) throw new InvalidInputError('A GPG key needs its ascii-armor.', 'asciiArmor')
    const org = await this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(namespace))
    if (!org) throw new ForbiddenError(`namespace not authorized: you may not add keys to ${namespace}`)
    await this.audit.check(caller, { permission: 'manage gpg keys', org, action: 'create', resource: { type: 'gpg-key', id: namespace, name: `a key of ${namespace}` } }, () => new ForbiddenError(`namespace not authorized: you may not add keys to ${namespace}`))
    const timestamp = now()
    const key: GpgKeyRecord = { id: newId('gpg'), organizationId: org.id, keyId: await publicKeyId(asciiArmor), asciiArmor, createdAt: timestamp, updatedAt: timestamp }
    try {
      await this.store.gpgKeys.create(key)
    } catch (error) {
      if (error instanceof UniqueConstraintError && error.index === GPG_KEY) {
        throw new InvalidInputError(`The namespace ${org.name} has key ${key.keyId} already.`, 'asciiArmor')
      }
      throw error
    }
    await this.changed(caller, org, 'create', key)
    return { org, key }
  }

  async read(caller: Caller, namespace: string, keyId: string): Promise<GpgKeyView> {
    const org = await this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(namespace))
    const key = org && authorize(caller, 'read gpg keys', org) ? await this.store.gpgKeys.findBy(GPG_KEY, `${org.id}/${keyId.toUpperCase()}`) : undefined
    if (!org || !key) throw new NotFoundError(`GPG key ${keyId} of ${namespace} not found`)
    return { org, key }
  }

  /** The key `keyId` of the organization, for verifying a signature; undefined when it has none. */
  async keyOf(org: OrganizationRecord, keyId: string): Promise<GpgKeyRecord | undefined> {
    return this.store.gpgKeys.findBy(GPG_KEY, `${org.id}/${keyId.toUpperCase()}`)
  }

  /** Moves a key to another namespace the caller manages (the only change HCP allows). */
  async update(caller: Caller, namespace: string, keyId: string, newNamespace: string | undefined): Promise<GpgKeyView> {
    const { org, key } = await this.forChange(caller, namespace, keyId, 'update')
    if (newNamespace === undefined || newNamespace === org.name) return { org, key }
    const target = await this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(newNamespace))
    const refusal = () => new ForbiddenError(`namespace not authorized: you may not manage the keys of ${newNamespace}`)
    if (!target) throw refusal()
    await this.audit.check(caller, { permission: 'manage gpg keys', org: target, action: 'update', resource: keyResource(org, key) }, refusal)
    try {
      const { record } = await this.store.gpgKeys.update(key.id, (draft) => {
        draft.organizationId = target.id
        draft.updatedAt = now()
      })
      // Both namespaces' owners see the key move.
      await this.changed(caller, org, 'update', record)
      await this.changed(caller, target, 'update', record)
      return { org: target, key: record }
    } catch (error) {
      if (error instanceof UniqueConstraintError) throw new InvalidInputError(`The namespace ${target.name} has key ${key.keyId} already.`, 'namespace')
      throw error
    }
  }

  async delete(caller: Caller, namespace: string, keyId: string): Promise<void> {
    const { org, key } = await this.forChange(caller, namespace, keyId, 'destroy')
    await this.store.gpgKeys.delete(key.id)
    await this.changed(caller, org, 'destroy', key)
  }

  /** Removes an organization's keys (it is being destroyed). */
  async removeOrganization(org: OrganizationRecord): Promise<void> {
    for (const key of await this.store.gpgKeys.listBy(BY_ORGANIZATION, org.id)) await this.store.gpgKeys.delete(key.id)
  }

  /** The key, for a change by someone who manages its namespace's keys: 404 to anyone else (recorded). */
  private async forChange(caller: Caller, namespace: string, keyId: string, action: string): Promise<GpgKeyView> {
    const org = await this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(namespace))
    const key = org && (await this.keyOf(org, keyId))
    const notFound = () => new NotFoundError(`GPG key ${keyId} of ${namespace} not found`)
    if (!org || !key) throw notFound()
    await this.audit.check(caller, { permission: 'manage gpg keys', org, action, resource: keyResource(org, key) }, notFound)
    return { org, key }
  }

  private changed(caller: Caller, org: OrganizationRecord, action: string, key: GpgKeyRecord): Promise<void> {
    return this.audit.done({ author: caller, permission: 'manage gpg keys', org, action, resource: keyResource(org, key) })
  }
}

function keyResource(org: OrganizationRecord, key: GpgKeyRecord): AuditResource {
  return { type: 'gpg-key', id: key.keyId, name: `key ${key.keyId} of ${org.name}` }
}
