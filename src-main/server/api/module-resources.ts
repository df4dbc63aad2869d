import { isOwner, type Caller } from '../domain/access.js'
import { namespaceOf, type ModuleView } from '../domain/modules.js'
import type { VersionRecord } from '../store/records.js'
import { organizationPath } from './organization-resources.js'

/** The path of a module (the spec's `links.self`). */
export function modulePath(view: ModuleView): string {
  const { org, module } = view
  const segments = [module.registryName, namespaceOf(view), module.name, module.provider].map(encodeURIComponent)
  return `${organizationPath(org.name)}/registry-modules/${segments.join('/')}`
}

/**
 * A `registry-modules` resource. List entries omit `vcs-repo`, as the spec says; otherwise list
 * entries and single documents are identical (go-tfe compares them).
 */
export function moduleResource(view: ModuleView, caller: Caller) {
  const { org, module } = view
  const owner = isOwner(caller, org)
  return {
    id: module.id,
    type: 'registry-modules',
    attributes: {
      name: module.name,
      namespace: namespaceOf(view),
      provider: module.provider,
      'registry-name': module.registryName,
      status: module.status,
      'version-statuses': module.versions.map((version) => ({
        version: version.version,
        status: version.status,
        ...(version.error ? { error: version.error } : {})
      })),
      'created-at': module.createdAt,
      'updated-at': module.updatedAt,
      'no-code': module.noCode,
      permissions: { 'can-delete': owner, 'can-resync': owner, 'can-retry': owner },
      ...(module.testConfig ? { 'test-config': { id: module.testConfig.id, 'tests-enabled': module.testConfig.testsEnabled } } : {})
    },
    relationships: {
      organization: { data: { id: org.name, type: 'organizations' } }
    },
    links: { self: modulePath(view) }
  }
}

/** A `registry-module-versions` resource; `uploadUrl` is given while the version takes an archive. */
export function versionResource(view: ModuleView, version: VersionRecord, uploadUrl: string | undefined) {
  return {
    id: version.id,
    type: 'registry-module-versions',
    attributes: {
      source: version.source,
      status: version.status,
      version: version.version,
      'commit-sha': version.commitSha,
      error: version.error,
      warnings: version.warnings,
      'created-at': version.createdAt,
      'updated-at': version.updatedAt
    },
    relationships: {
      'registry-module': { data: { id: view.module.id, type: 'registry-modules' } }
    },
    links: uploadUrl ? { upload: uploadUrl } : {}
  }
}
