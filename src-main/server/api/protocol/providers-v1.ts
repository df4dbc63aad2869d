import Router from '@koa/router'
import type { Middleware } from 'koa'
import type { Services } from '../../domain/services.js'
import type { Caller } from '../../domain/core/access.js'
import type { ListedProviderVersion, ProviderPackage, ProviderVersionList } from '../../domain/providers/provider-registry.js'
import type { MirrorArchive } from '../../domain/providers/provider-mirror.js'
import { callerOf, requireBearer } from '../../http/auth.js'
import { HttpError } from '../../http/errors.js'
import { pathParams } from '../../http/query.js'
import type { BaseUrl } from '../../http/base-url.js'
import type { SignedLocation } from '../../http/signed-files.js'

export const PROVIDERS_PREFIX = '/api/registry/v1/providers'
/** The private registry's v2 docs API (api/protocol/provider-docs.ts), beside its /v1/ as on the public registry. */
export const PROVIDER_DOCS_PREFIX = '/api/registry/v2'
export const PROVIDER_FILES_PREFIX = '/api/registry/provider-files'
export const NETWORK_MIRROR_PREFIX = '/api/registry/provider-mirror/v1'

/** What the protocol needs of a source of providers: the private registry, or the public mirror. */
interface ProviderSource {
  versions(caller: Caller, namespace: string, type: string): Promise<ProviderVersionList>
  download(caller: Caller, namespace: string, type: string, version: string, os: string, arch: string): Promise<ProviderPackage>
}

/** What the network mirror needs of a source: the versions, each zip's name, hash and signed location, and why a version is not offered. */
interface MirrorSource {
  versions(caller: Caller, namespace: string, type: string): Promise<ListedProviderVersion[]>
  archive(caller: Caller, namespace: string, type: string, version: string, os: string, arch: string): Promise<MirrorArchive>
  /** Throws the gate's refusal (naming its rule) for a version it holds back; a source without a gate has none. */
  admit?(caller: Caller, namespace: string, type: string, version: string): Promise<void>
}

/**
 * The provider registry protocol (`providers.v1`, shared/research/providers.md §3), with the same
 * bearer tokens as the API: over private providers (the namespace is the organization) at
 * PROVIDERS_PREFIX, and over each public registry's mirror under its prefix (PUBLIC_MIRROR_PREFIXES). Errors are
 * `{"errors": ["…"]}`.
 */
export function providerProtocolRouter(prefix: string, source: ProviderSource, rateLimit: Middleware, baseUrl: BaseUrl): Router {
  const router = new Router({ prefix })
  router.use(rateLimit)
  router.use(requireBearer)
  router.get('/:namespace/:type/versions', async (ctx) => {
    const { namespace, type } = pathParams(ctx, 'namespace', 'type')
    const { versions, warnings } = await source.versions(callerOf(ctx), namespace, type)
    ctx.body = warnings.length > 0 ? { versions, warnings } : { versions }
  })
  router.get('/:namespace/:type/:version/download/:os/:arch', async (ctx) => {
    const { namespace, type, version, os, arch } = pathParams(ctx, 'namespace', 'type', 'version', 'os', 'arch')
    const found = await source.download(callerOf(ctx), namespace, type, version, os, arch)
    // Absolute (from --base-url, or the origin the client called): Terraform resolves a path against the
    // URL it called, but other clients of this answer (Renovate refreshing lock files) take it as it is.
    const file = (token: string, name: string) => providerFileUrl(baseUrl(ctx), token, name)
    ctx.body = {
      protocols: found.protocols,
      os: found.os,
      arch: found.arch,
      filename: found.filename,
      download_url: file(found.tokens.binary, found.filename),
      shasums_url: file(found.tokens.shasums, found.shasumsName),
      shasums_signature_url: file(found.tokens.signature, `${found.shasumsName}.sig`),
      shasum: found.shasum,
      signing_keys: {
        gpg_public_keys: found.keys.map((key) => ({
          key_id: key.keyId,
          ascii_armor: key.asciiArmor,
          trust_signature: key.trustSignature,
          source: key.source,
          source_url: key.sourceUrl
        }))
      },
      // OpenTofu 1.12 locks every platform listed here at once; Terraform ignores it.
      ...(found.packages ? { packages: found.packages } : {})
    }
  })
  return router
}

/** Where a signed provider file is served (http/signed-files.ts checks the token), as an absolute URL. */
function providerFileUrl(base: string, token: string, name: string): string {
  return `${base}${PROVIDER_FILES_PREFIX}/${token}/${encodeURIComponent(name)}`
}

/**
 * The provider network mirror protocol (shared/research/providers.md §4), for users who configure
 * `provider_installation { network_mirror { url = "https://…/api/registry/provider-mirror/v1/" } }`
 * (Terraform allows it over HTTPS only). `:hostname` is the provider's own registry host: the
 * public registries' names reach the public mirror, the registry hostname the private providers.
 * The archives' hashes are their `h1:` (when known) and `zh:`: Terraform checks them and records only
 * its own `h1:`; OpenTofu with `trust_all_hashes` records them all.
 */
export function networkMirrorRouter(services: Services, rateLimit: Middleware, registryHostname: string, baseUrl: BaseUrl): Router {
  const router = new Router({ prefix: NETWORK_MIRROR_PREFIX })
  router.use(rateLimit)
  router.use(requireBearer)
  const sourceFor = (hostname: string): MirrorSource => {
    if (hostname === registryHostname.toLowerCase()) {
      const registry = services.providerRegistry
      return {
        versions: async (caller, namespace, type) => (await registry.versions(caller, namespace, type)).versions,
        archive: async (...args) => {
          const { filename, shasum, hash1, tokens } = await registry.download(...args)
          return { filename, shasum, hash1, token: tokens.binary }
        }
      }
    }
    // Only what is mirrored already (imported packages too): a version file lists every platform, and pulling them all through for one request would be too much.
    const mirror = services.publicMirrors.find(hostname)?.providers
    if (mirror) {
      return {
        versions: (caller, namespace, type) => mirror.localVersions(caller, namespace, type, { unsigned: true }),
        archive: (...args) => mirror.archive(...args),
        admit: (...args) => mirror.admit(...args)
      }
    }
    throw new HttpError(404, 'not found', `This mirror serves providers of ${[registryHostname, ...services.publicMirrors.names].join(', ')}, not of ${hostname}.`)
  }
  router.get('/:hostname/:namespace/:type/:file', async (ctx) => {
    const { hostname, namespace, type, file } = pathParams(ctx, 'hostname', 'namespace', 'type', 'file')
    const source = sourceFor(hostname.toLowerCase())
    ctx.type = 'application/json'
    if (file === 'index.json') {
      const versions = await source.versions(callerOf(ctx), namespace, type)
      ctx.body = { versions: Object.fromEntries(versions.map((version) => [version.version, {}])) }
      return
    }
    const version = /^(.+)\.json$/.exec(file)?.[1]
    if (!version) throw new HttpError(404, 'not found', 'A network mirror answers index.json and <version>.json.')
    const listed = (await source.versions(callerOf(ctx), namespace, type)).find((entry) => entry.version === version)
    if (!listed) {
      // A version the gate holds is answered with its rule; one that is not here, as such.
      await source.admit?.(callerOf(ctx), namespace, type, version)
      throw new HttpError(404, 'not found', `${hostname}/${namespace}/${type} has no version ${version} here.`)
    }
    const archives: Record<string, { url: string; hashes: string[] }> = {}
    for (const { os, arch } of listed.platforms ?? []) {
      const found = await source.archive(callerOf(ctx), namespace, type, version, os, arch)
      archives[`${os}_${arch}`] = { url: providerFileUrl(baseUrl(ctx), found.token, found.filename), hashes: [...(found.hash1 ? [found.hash1] : []), `zh:${found.shasum}`] }
    }
    ctx.body = { archives }
  })
  return router
}

/** A provider release's files at their signed, short-lived locations (see http/signed-files.ts). */
export function providerFiles(services: Services): SignedLocation {
  return {
    prefix: PROVIDER_FILES_PREFIX,
    async find(token, name) {
      const file = await (token.versionId.startsWith('mirp') ? services.publicMirrors : services.providerRegistry).fileFor(token)
      return file && { ...file, type: name.endsWith('.zip') ? 'application/zip' : 'application/octet-stream' }
    }
  }
}
