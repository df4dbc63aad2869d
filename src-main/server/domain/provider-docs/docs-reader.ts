import type { ProviderDocRecord, ProviderDocsRecord } from '../../store/records.js'
import type { Caller } from '../core/access.js'
import { NotFoundError } from '../core/errors.js'
import type { ProviderService } from '../providers/providers.js'
import type { PublicMirrors } from '../upstream/public-mirrors.js'
import { mirroredDocsKey, privateDocsKey, searchDocs, type DocsQuery, type FoundDoc, type ProviderDocs } from './provider-docs.js'
import { newestVersionsFirst } from '../core/newest-first.js'

/**
 * Which provider's docs: a private provider of an organization (its namespace is the organization's
 * name), or a public one mirrored from a public registry (by the name the registry is known by).
 */
export type DocsProvider = { kind: 'private'; organization: string; name: string } | { kind: 'mirror'; hostname: string; namespace: string; type: string }

/** A provider's docs as a caller may read them: its name, and the versions it may see, each with its docs if it has them. */
export interface DocsShelf {
  /** The docs' key (see ProviderDocs). */
  key: string
  /** `registry.terraform.io/hashicorp/null`, `acme/internal`: how people name it. */
  address: string
  namespace: string
  /** The provider's type (`null`): the prefix of its resources' names. */
  name: string
  /** Every version the caller may install, newest first. */
  versions: string[]
  /** Those versions' docs, by version. */
  docs: Map<string, ProviderDocsRecord>
}

/** A doc read by a caller: the version's docs it is one of, and its provider. */
export interface ReadDoc extends FoundDoc {
  shelf: DocsShelf
  markdown: string
}

/**
 * Provider docs as callers read them, on every face (the registry's v1 and v2 docs APIs, the GUI,
 * MCP): a private provider's to the teams of its organization, a mirrored one's for the versions the
 * gate offers the caller, exactly as its packages are. A provider or doc the caller may not see is
 * not found, as it is on the protocol.
 */
export class DocsReader {
  constructor(
    private readonly docs: ProviderDocs,
    private readonly providers: ProviderService,
    private readonly mirrors: PublicMirrors,
    private readonly registryHostname: string
  ) {}

  /** The provider's docs shelf for the caller. */
  async shelf(caller: Caller, provider: DocsProvider): Promise<DocsShelf> {
    let key: string
    let address: string
    let namespace: string
    let name: string
    let versions: string[]
    if (provider.kind === 'private') {
      const view = await this.providers.read(caller, { organization: provider.organization, registryName: 'private', namespace: provider.organization, name: provider.name })
      key = privateDocsKey(view.provider.id)
      namespace = view.org.name
      name = view.provider.name
      address = `${this.registryHostname}/${namespace}/${name}`
      versions = view.provider.versions.filter((version) => version.shasums && version.shasumsSig).map((version) => version.version)
    } else {
      const mirror = this.mirrors.find(provider.hostname)?.providers
      if (!mirror) throw new NotFoundError(`${provider.hostname} is not a public registry mirrored here`)
      namespace = provider.namespace.toLowerCase()
      name = provider.type.toLowerCase()
      key = mirroredDocsKey(mirror.hostname, namespace, name)
      address = `${mirror.publicName}/${namespace}/${name}`
      versions = (await mirror.localVersions(caller, namespace, name, { unsigned: true }).catch(() => [])).map((version) => version.version)
      if (versions.length === 0) throw new NotFoundError(`${address} is not mirrored here`)
    }
    versions = newestVersionsFirst(versions)
    const offered = new Set(versions)
    const docs = new Map((await this.docs.versions(key)).filter((record) => offered.has(record.version)).map((record) => [record.version, record]))
    return { key, address, namespace, name, versions, docs }
  }

  /** One version's docs (the newest version with docs, without one). */
  async version(caller: Caller, provider: DocsProvider, version?: string): Promise<{ shelf: DocsShelf; docs: ProviderDocsRecord }> {
    const shelf = await this.shelf(caller, provider)
    const wanted = version ?? shelf.versions.find((candidate) => shelf.docs.has(candidate))
    const docs = wanted === undefined ? undefined : shelf.docs.get(wanted)
    if (!docs) {
      if (version !== undefined && !shelf.versions.includes(version)) throw new NotFoundError(`${shelf.address} has no version ${version} here`)
      throw new NotFoundError(`${shelf.address}${version ? ` ${version}` : ''} has no documentation here`)
    }
    return { shelf, docs }
  }

  /** One doc by its number, if the caller may read its provider's version; `inside` narrows to one provider's key prefix (a face's). */
  async byNumber(caller: Caller, number: string, inside: (key: string) => boolean): Promise<ReadDoc> {
    const found = await this.docs.byNumber(number)
    const shelf = found && inside(found.docs.provider) ? await this.shelfOf(caller, found.docs).catch(() => undefined) : undefined
    if (!found || !shelf?.docs.has(found.docs.version)) throw new NotFoundError(`There is no provider doc ${number} here`)
    return { ...found, shelf, markdown: await this.docs.text(found.doc) }
  }

  /** A version's docs by the number the v2 API gives it, if the caller may read them. */
  async versionByNumber(caller: Caller, number: string, inside: (key: string) => boolean): Promise<{ shelf: DocsShelf; docs: ProviderDocsRecord } | undefined> {
    const docs = await this.docs.versionByNumber(number)
    const shelf = docs && inside(docs.provider) ? await this.shelfOf(caller, docs).catch(() => undefined) : undefined
    return docs && shelf?.docs.has(docs.version) ? { shelf, docs } : undefined
  }

  /** One doc of a version, by its category and slug (the newest version with docs, without one). */
  async doc(caller: Caller, provider: DocsProvider, target: { version?: string; category: string; slug: string; language?: string }): Promise<ReadDoc> {
    const { shelf, docs } = await this.version(caller, provider, target.version)
    const doc = docs.docs.find((candidate) => candidate.category === target.category && candidate.slug === target.slug && candidate.language === (target.language ?? 'hcl'))
    if (!doc) throw new NotFoundError(`${shelf.address} ${docs.version} has no ${target.category} doc "${target.slug}"`)
    return { docs, doc, shelf, markdown: await this.docs.text(doc) }
  }

  /** A search of one version's docs. */
  async search(caller: Caller, provider: DocsProvider, version: string | undefined, query: DocsQuery): Promise<{ shelf: DocsShelf; docs: ProviderDocsRecord; found: ProviderDocRecord[] }> {
    const { shelf, docs } = await this.version(caller, provider, version)
    return { shelf, docs, found: searchDocs(docs, shelf.name, query) }
  }

  /**
   * The docs of every provider the caller may read (the newest version of each with docs) that
   * match `text`: the GUI's global search finds `aws_s3_bucket` there.
   */
  async searchEverywhere(caller: Caller, text: string, limit: number): Promise<Array<{ shelf: DocsShelf; docs: ProviderDocsRecord; doc: ProviderDocRecord }>> {
    const found: Array<{ shelf: DocsShelf; docs: ProviderDocsRecord; doc: ProviderDocRecord; rank: number }> = []
    for (const key of await this.docs.providers()) {
      const newest = (await this.docs.versions(key))[0]
      const shelf = newest && (await this.shelfOf(caller, newest).catch(() => undefined))
      const docs = shelf && shelf.versions.map((version) => shelf.docs.get(version)).find(Boolean)
      if (!shelf || !docs) continue
      searchDocs(docs, shelf.name, { text, limit }).forEach((doc, rank) => found.push({ shelf, docs, doc, rank }))
    }
    return found.sort((a, b) => a.rank - b.rank).slice(0, limit)
  }

  /** The shelf of the provider a docs record belongs to, for the caller. */
  private async shelfOf(caller: Caller, docs: ProviderDocsRecord): Promise<DocsShelf> {
    return this.shelf(caller, await this.providerOf(docs))
  }

  /** Which provider a docs record's key names. */
  private async providerOf(docs: ProviderDocsRecord): Promise<DocsProvider> {
    const [kind, rest = ''] = docs.provider.split(/:(.*)/s) as [string, string?]
    if (kind === 'private') {
      const found = await this.providers.byId(rest)
      if (!found) throw new NotFoundError('the provider was deleted')
      return { kind: 'private', organization: found.org.name, name: found.provider.name }
    }
    const [hostname = '', namespace = '', type = ''] = rest.split('/')
    return { kind: 'mirror', hostname, namespace, type }
  }
}

/** Whether a docs key is a private provider's (the private registry's face serves only those). */
export const isPrivateDocs = (key: string): boolean => key.startsWith('private:')

/** Whether a docs key is of a provider mirrored from the upstream at `hostname` (a public registry face serves only its own). */
export const isMirroredFrom =
  (hostname: string) =>
  (key: string): boolean =>
    key.startsWith(`mirror:${hostname}/`)
