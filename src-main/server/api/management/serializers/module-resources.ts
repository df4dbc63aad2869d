import { type Caller } from '../../../domain/core/access.js'
import { authorize } from '../../../domain/core/authorize.js'
import { namespaceOf, type ModuleView } from '../../../domain/modules/module-rules.js'
import type { VersionRecord } from '../../../store/records.js'
import type { Resource } from '../../../../shared/wire/jsonapi.js'
import type { ModuleAttributes, ModuleVersionAttributes, VcsRepoAttributes } from '../../../../shared/wire/modules.js'
import { deprecationAttributes } from './deprecation.js'
import { organizationPath } from './organization-resources.js'
import { newestFirst } from '../../../domain/core/newest-first.js'

/** The path of a module (HCP’s `links.self`). */
export function modulePath(view: ModuleView): string {
  const { org, module } = view
  const segments = [module.registryName, namespaceOf(view), module.name, module.provider].map(encodeURIComponent)
  return `${organizationPath(org.name)}/registry-modules/${segments.join('/')}`
}

export interface ModuleResourceOptions {
  /** The server's public URL, for the webhook URL. */
  baseUrl: string
  /** List entries omit `vcs-repo`, as HCP’s API documentation says. */
  listEntry?: boolean
  /** List entries carry Homeport's own `description`: the latest version's README's first paragraph. */
  description?: string
  /** And Homeport's own `downloads`: how many times the module was installed. */
  downloads?: number
}

/** The repository a VCS module comes from, as a URL a person can recognise. */
export function repositoryUrl({ org, module }: ModuleView): string {
  const connection = module.vcsRepo && org.vcsConnections.find((candidate) => candidate.tokenId === module.vcsRepo!.oauthTokenId)
  return connection && module.vcsRepo ? `${connection.baseUrl.replace(/\/+$/, '')}/${module.vcsRepo.identifier}` : ''
}

/** `vcs-repo`; the webhook URL (a secret) and the repository's location only for callers who may publish. */
function vcsRepoAttribute(view: ModuleView, baseUrl: string, publisher: boolean): VcsRepoAttributes {
  const vcsRepo = view.module.vcsRepo!
  return {
    branch: vcsRepo.branch,
    'ingress-submodules': true,
    identifier: vcsRepo.identifier,
    'display-identifier': vcsRepo.displayIdentifier,
    'oauth-token-id': vcsRepo.oauthTokenId,
    'webhook-url': publisher ? `${baseUrl}/webhooks/vcs/${vcsRepo.webhookId}` : null,
    'repository-http-url': publisher ? repositoryUrl(view) : null,
    'service-provider': 'git',
    tags: vcsRepo.branch === '',
    'source-directory': vcsRepo.sourceDirectory,
    'tag-prefix': vcsRepo.tagPrefix,
    'synced-at': vcsRepo.syncedAt,
    'sync-error': vcsRepo.syncError
  }
}

/**
 * A `registry-modules` resource. Apart from `vcs-repo`, which list entries omit, list entries and
 * single documents are identical (go-tfe compares them).
 */
export function moduleResource(view: ModuleView, caller: Caller, options: ModuleResourceOptions): Resource<ModuleAttributes, 'registry-modules'> {
  const { org, module } = view
  const owner = authorize(caller, 'manage module', org)
  const vcs: Pick<ModuleAttributes, 'publishing-mechanism' | 'vcs-repo'> = module.vcsRepo
    ? {
        'publishing-mechanism': module.vcsRepo.branch ? 'branch' : 'git_tag',
        ...(options.listEntry ? {} : { 'vcs-repo': vcsRepoAttribute(view, options.baseUrl, authorize(caller, 'publish module', org)) })
      }
    : {}
  return {
    id: module.id,
    type: 'registry-modules',
    attributes: {
      name: module.name,
      namespace: namespaceOf(view),
      provider: module.provider,
      'registry-name': module.registryName,
      status: module.status,
      // Newest first, as HCP lists them: HashiCorp's own MCP server takes the first for the latest.
      'version-statuses': newestFirst(module.versions, (version) => version.version).map((version) => ({
        version: version.version,
        status: version.status,
        ...(version.error ? { error: version.error } : {})
      })),
      // HCP's; deprecated-versions is Homeport's own.
      'revoked-versions': module.versions.filter((version) => version.revocation).map((version) => version.version),
      'deprecated-versions': module.versions.filter((version) => version.deprecation).map((version) => version.version),
      // Homeport's own, for the version menu: when each published version was published, and from which tag or commit.
      'published-versions': module.versions
        .filter((version) => version.status === 'ok')
        .map((version) => ({ version: version.version, 'published-at': version.publishedAt, tag: version.tag, 'commit-sha': version.commitSha })),
      'created-at': module.createdAt,
      'updated-at': module.updatedAt,
      'no-code': module.noCode,
      ...(options.description !== undefined ? { description: options.description } : {}),
      ...(options.downloads !== undefined ? { downloads: options.downloads } : {}),
      permissions: { 'can-delete': owner, 'can-resync': owner, 'can-retry': owner },
      ...vcs,
      ...(module.testConfig ? { 'test-config': { id: module.testConfig.id, 'tests-enabled': module.testConfig.testsEnabled } } : {})
    },
    relationships: {
      organization: { data: { id: org.name, type: 'organizations' } }
    },
    links: { self: modulePath(view) }
  }
}

/** A `registry-module-versions` resource; `uploadUrl` is given while the version takes an archive. */
export function versionResource(view: ModuleView, version: VersionRecord, uploadUrl: string | undefined): Resource<ModuleVersionAttributes, 'registry-module-versions'> {
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
      'updated-at': version.updatedAt,
      deprecation: deprecationAttributes(version.deprecation),
      revocation: version.revocation && {
        status: 'Revoked',
        message: version.revocation.message,
        link: version.revocation.link,
        'revoked-by': version.revocation.by,
        'revoked-at': version.revocation.at,
        // How many tokens may go on using it (who they are stays with the owners).
        'existing-consumers': version.revocation.consumers.length
      }
    },
    relationships: {
      'registry-module': { data: { id: view.module.id, type: 'registry-modules' } }
    },
    links: uploadUrl ? { upload: uploadUrl } : {}
  }
}
