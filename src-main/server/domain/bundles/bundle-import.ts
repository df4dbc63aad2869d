import { Readable } from 'node:stream'
import semver from 'semver'
import type { Store } from '../../store/port.js'
import type { Caller } from '../core/access.js'
import type { ArchiveKeeper } from '../archives/archive-keeper.js'
import { ConflictError, InvalidInputError, NotFoundError } from '../core/errors.js'
import type { ModuleService } from '../modules/modules.js'
import { checkName, checkProvider, findVersion, normalizeVersion, type ModuleView } from '../modules/module-rules.js'
import { validateOrganizationName, type OrganizationService } from '../organizations/organizations.js'
import type { GpgKeyService } from '../providers/gpg-keys.js'
import type { ProviderUploadService } from '../providers/provider-uploads.js'
import { checkPlatformPart, checkProtocols, findProviderVersion, isTerraformProviderPart, type ProviderService, type ProviderView } from '../providers/providers.js'
import { binarySignature, checkProviderZip, checkSignature, parseShasums, publicKeyId } from '../providers/release-files.js'
import type { PublicMirrors } from '../upstream/public-mirrors.js'
import type { BundledKey, BundledModule, BundledProvider } from '../../../shared/bundle-manifest.js'
import type { ImportedModule, ImportedProvider, ImportOutcome } from '../../../shared/wire/bundles.js'
import type { OpenedBundle } from './bundle-files.js'
import { ImportJournal } from './import-journal.js'
import { readDocsFile, type DocsFile } from '../provider-docs/docs-file.js'
import { mirroredDocsKey, mirroredDocsNumbering, privateDocsKey, privateDocsNumbering, type ProviderDocs } from '../provider-docs/provider-docs.js'

export interface ImportServices {
  store: Store
  organizations: OrganizationService
  modules: ModuleService
  publicMirrors: PublicMirrors
  providers: ProviderService
  gpgKeys: GpgKeyService
  providerUploads: ProviderUploadService
  archives: ArchiveKeeper
  maxArchiveBytes: number
  registryHostname: string
  providerDocs: ProviderDocs
}

/** What an import did, item by item (the API's `bundle-imports`). */
export interface ImportReport {
  id: string
  /** The organization that curates the bundle's public modules here. */
  organization: string
  createdOrganizations: string[]
  modules: ImportedModule[]
  providers: ImportedProvider[]
  /** Things worth saying that did not stop the import. */
  notes: string[]
}

interface Verified {
  provider: BundledProvider
  shasums: Buffer
  signature: Buffer
  key: BundledKey
  /** Its docs, read and checked, when the bundle carries them. */
  docs?: DocsFile
}

/**
 * Imports an opened bundle (every file already checked against its manifest, see bundle-files.ts)
 * for the site admin, whole or not at all. Before it writes anything it checks everything a write
 * could refuse: each provider's SHA256SUMS against the keys the bundle carries, each zip against
 * SHA256SUMS and as a provider package, every name, version, platform, protocol and key by the
 * rules a publish applies, and that nothing in the bundle contradicts what is here already
 * (another archive for a version, another SHA256SUMS). Then it adds what is missing, through the
 * same services as a publish, a mirror and a provider import, each write journaled
 * (import-journal.ts) so that a failure after all takes every one of them back. What is here
 * already is left as it is, so importing twice changes nothing.
 */
export class BundleImporter {
  constructor(
    private readonly id: string,
    private readonly caller: Caller,
    private readonly bundle: OpenedBundle,
    private readonly services: ImportServices
  ) {}

  async run(organization?: string): Promise<ImportReport> {
    const { manifest } = this.bundle
    const report: ImportReport = { id: this.id, organization: organization ?? manifest.organization.name, createdOrganizations: [], modules: [], providers: [], notes: [] }
    const verified: Verified[] = []
    for (const provider of manifest.providers) verified.push(await this.verify(provider))
    const conflicts = [...(await this.moduleConflicts(report.organization)), ...(await this.providerConflicts(verified))]
    if (!this.services.publicMirrors.terraform.modules.curating && manifest.modules.some((module) => module.registry === 'public')) {
      conflicts.unshift('The bundle holds public modules, and this Homeport keeps none (the self-hosted edition, or --public-curation off).')
    }
    if (conflicts.length > 0) throw new ConflictError(`Nothing was imported: ${conflicts.join(' ')}`)
    await this.checkRules(verified, report.organization)

    const journal = new ImportJournal(this.id, this.services)
    try {
      for (const module of manifest.modules) report.modules.push({ source: label(module), version: module.version, outcome: await this.importModule(module, report, journal) })
      for (const found of verified) {
        const { provider } = found
        const outcome = provider.registry === 'mirror' ? await this.importMirrored(found, journal) : await this.importPrivate(found, report, journal)
        await this.importDocs(found)
        report.providers.push({ source: `${provider.hostname}/${provider.namespace}/${provider.type}`, version: provider.version, platforms: provider.packages.map(({ os, arch }) => `${os}_${arch}`), outcome })
      }
    } catch (error) {
      await journal.rollBack()
      throw error
    }
    await journal.commit()
    const elsewhere = new Set(manifest.modules.filter((module) => module.registry === 'private' && module.hostname !== this.services.registryHostname).map((module) => module.hostname))
    for (const hostname of elsewhere) {
      report.notes.push(`The bundle's private modules were addressed as ${hostname}/…; here they are ${this.services.registryHostname}/…: start Homeport with --registry-hostname ${hostname} so the configuration works unchanged.`)
    }
    return report
  }

  /** A provider's SHA256SUMS signed by one of its keys, and each zip listed there under its own name. */
  private async verify(provider: BundledProvider): Promise<Verified> {
    const name = `${provider.hostname}/${provider.namespace}/${provider.type} ${provider.version}`
    const refuse = (reason: string) => new InvalidInputError(`Nothing was imported: ${name} ${reason}.`, 'bundle')
    const shasums = await this.bundle.read(provider.shasums)
    const signature = await this.bundle.read(provider.signature)
    const binary = await binarySignature(signature).catch(() => undefined)
    let key: BundledKey | undefined
    for (const candidate of provider.keys) {
      if (binary && (await checkSignature(candidate.asciiArmor, shasums, binary).then(() => true, () => false))) {
        key = candidate
        break
      }
    }
    if (!key) throw refuse('has a SHA256SUMS that none of the keys the bundle carries for it signed: it was changed, or signed by someone else')
    let sums: Map<string, string>
    try {
      sums = parseShasums(shasums.toString('utf8'))
    } catch (error) {
      throw refuse(`has a SHA256SUMS that cannot be read (${(error as Error).message})`)
    }
    for (const found of provider.packages) {
      const filename = `terraform-provider-${provider.type}_${provider.version}_${found.os}_${found.arch}.zip`
      if (found.filename !== filename) throw refuse(`names its ${found.os}_${found.arch} zip ${found.filename}, not ${filename}`)
      if (sums.get(filename) !== found.file.sha256) throw refuse(`has a ${filename} that its signed SHA256SUMS does not list with that SHA-256`)
    }
    const docs = provider.docs && readDocsFile(await this.bundle.read(provider.docs), name)
    return { provider, shasums, signature, key, ...(docs ? { docs } : {}) }
  }

  /**
   * Every rule a write of this import would apply, applied first: names, versions, platforms,
   * protocols, keys, and each zip read as Terraform reads a provider package. The first broken
   * rule refuses the import with nothing written.
   */
  private async checkRules(verified: Verified[], organization: string): Promise<void> {
    const refuse = (what: string, error: unknown): never => {
      if (!(error instanceof InvalidInputError)) throw error
      throw new InvalidInputError(`Nothing was imported: ${what}: ${error.message}`, 'bundle')
    }
    const organizations = new Set<string>()
    for (const module of this.bundle.manifest.modules) {
      const what = `${label(module)} ${module.version}`
      try {
        checkName(module.name, 'name')
        checkProvider(module.provider)
        if (module.registry === 'public') checkName(module.namespace, 'namespace')
        if (!normalizeVersion(module.version)) throw new InvalidInputError(`"${module.version}" is not a semantic version.`)
        organizations.add(module.registry === 'public' ? organization : module.namespace)
      } catch (error) {
        refuse(what, error)
      }
    }
    for (const { provider, key } of verified) {
      const what = `${provider.hostname}/${provider.namespace}/${provider.type} ${provider.version}`
      try {
        if (!isTerraformProviderPart(provider.namespace) || !isTerraformProviderPart(provider.type)) throw new InvalidInputError(`"${provider.namespace}/${provider.type}" is not a provider address Terraform accepts.`)
        if (semver.valid(provider.version) !== provider.version) throw new InvalidInputError(`"${provider.version}" is not a semantic version.`)
        checkProtocols(provider.protocols, provider.registry)
        await publicKeyId(key.asciiArmor, 'key')
        for (const found of provider.packages) {
          checkPlatformPart(found.os, 'os')
          checkPlatformPart(found.arch, 'arch')
          await checkProviderZip(provider.type, found.file.size, (start, end) => this.bundle.open(found.file, { start, end }))
        }
        if (provider.registry === 'private') organizations.add(provider.namespace)
      } catch (error) {
        refuse(what, error)
      }
    }
    for (const name of organizations) {
      if (await this.services.organizations.read(this.caller, name).catch(missing)) continue
      try {
        validateOrganizationName(name)
      } catch (error) {
        refuse(`the organization ${name}`, error)
      }
    }
  }

  private async moduleConflicts(organization: string): Promise<string[]> {
    const conflicts: string[] = []
    for (const module of this.bundle.manifest.modules) {
      const view = await this.existingModule(module, organization)
      const version = view && findVersion(view.module, module.version)
      if (version && version.archive?.sha256 !== module.archive.sha256) {
        conflicts.push(`${label(module)} ${module.version} is here already with another archive${version.status === 'ok' ? '' : ` (${version.status})`}: delete that version to import this one.`)
      }
    }
    return conflicts
  }

  private async providerConflicts(verified: Verified[]): Promise<string[]> {
    const conflicts: string[] = []
    for (const { provider } of verified) {
      if (provider.registry === 'mirror') {
        const conflict = await this.services.publicMirrors.for(provider.hostname).providers.releaseConflict(provider.namespace, provider.type, provider.version, provider.shasums.sha256)
        if (conflict) conflicts.push(conflict)
        continue
      }
      const view = await this.existingProvider(provider)
      const version = view && findProviderVersion(view.provider, provider.version)
      if (version && version.shasums?.sha256 !== provider.shasums.sha256) {
        conflicts.push(`${provider.namespace}/${provider.type} ${provider.version} is here already with another SHA256SUMS${version.shasums ? '' : ' (or none yet)'}: delete that version to import this one.`)
      }
    }
    return conflicts
  }

  private async existingModule(module: BundledModule, organization: string): Promise<ModuleView | undefined> {
    const address =
      module.registry === 'public'
        ? { organization, registryName: 'public', namespace: module.namespace, name: module.name, provider: module.provider }
        : { organization: module.namespace, registryName: 'private', namespace: module.namespace, name: module.name, provider: module.provider }
    return this.services.modules.read(this.caller, address).catch(missing)
  }

  private existingProvider(provider: BundledProvider): Promise<ProviderView | undefined> {
    return this.services.providers.read(this.caller, { organization: provider.namespace, registryName: 'private', namespace: provider.namespace, name: provider.type }).catch(missing)
  }

  /** The organization, made (with the bundle's organization's email) when this Homeport has none of that name. */
  private async ensureOrganization(name: string, report: ImportReport, journal: ImportJournal): Promise<void> {
    const found = await this.services.organizations.read(this.caller, name).catch(missing)
    if (found) return
    await this.services.organizations.create(this.caller, { name, email: this.bundle.manifest.organization.email })
    await journal.wrote({ kind: 'organization', name })
    report.createdOrganizations.push(name)
  }

  private async importModule(module: BundledModule, report: ImportReport, journal: ImportJournal): Promise<ImportOutcome> {
    const organization = module.registry === 'public' ? report.organization : module.namespace
    await this.ensureOrganization(organization, report, journal)
    const { modules, publicMirrors, store, archives, maxArchiveBytes } = this.services
    const address = { organization, registryName: module.registry, namespace: module.namespace, name: module.name, provider: module.provider }
    if (module.registry === 'public') {
      if (await publicMirrors.for(module.hostname).modules.curate(this.caller, organization, module.namespace, module.name, module.provider)) await journal.wrote({ kind: 'module', ...address })
    } else if (!(await this.existingModule(module, organization))) {
      await modules.create(this.caller, organization, { registryName: 'private', name: module.name, provider: module.provider })
      await journal.wrote({ kind: 'module', ...address })
    }
    const view = (await this.existingModule(module, organization))!
    if (findVersion(view.module, module.version)) return 'present'
    const archive = await store.archives.put(this.bundle.open(module.archive), maxArchiveBytes)
    const unpin = archives.pin(archive.sha256)
    try {
      await modules.addStoredVersion(view, module.version, archive, module.registry === 'public' ? 'mirror' : 'bundle')
      await journal.wrote({ kind: 'module-version', ...address, version: module.version })
    } finally {
      unpin()
      await archives.release([archive.sha256])
    }
    return 'added'
  }

  /**
   * The version's docs, kept as they were, unless it has docs here already. They go with their
   * version when a failed import takes it back (a version's removal takes its docs).
   */
  private async importDocs({ provider, docs }: Verified): Promise<void> {
    if (!docs) return
    const { hostname, namespace, type, version } = provider
    const mirror = provider.registry === 'mirror' ? this.services.publicMirrors.for(hostname).providers : undefined
    const [key, numbering] = mirror
      ? [mirroredDocsKey(mirror.hostname, namespace, type), mirroredDocsNumbering(mirror.publicName, namespace, type)]
      : [privateDocsKey((await this.existingProvider(provider))!.provider.id), privateDocsNumbering(namespace, type)]
    if (await this.services.providerDocs.ofVersion(key, version)) return
    await this.services.providerDocs.keep(key, version, docs.source, docs.docs, numbering)
  }

  /** A public provider, into the mirror as a signed release (the same path as `homeport import-providers` of a release folder). */
  private async importMirrored({ provider, shasums, signature, key }: Verified, journal: ImportJournal): Promise<ImportOutcome> {
    const { hostname, namespace, type, version } = provider
    const mirror = this.services.publicMirrors.for(hostname).providers
    const before = (await mirror.keptVersions(namespace, type, { unsigned: true }).catch(missing))?.find((candidate) => candidate.version === version)
    const release = await mirror.importRelease(this.caller, {
      hostname,
      namespace,
      type,
      version,
      shasums,
      signature,
      signingKey: key.asciiArmor,
      protocols: provider.protocols,
      keyDetails: { trustSignature: key.trustSignature, source: key.source, sourceUrl: key.sourceUrl }
    })
    if (!before) await journal.wrote({ kind: 'mirrored-version', hostname: mirror.publicName, namespace, type, version })
    let present = release.present
    for (const found of provider.packages) {
      const target = { hostname, namespace, type, version, os: found.os, arch: found.arch, hashes: [`zh:${found.file.sha256}`] }
      const imported = await mirror.importPackage(this.caller, target, this.bundle.open(found.file))
      if (before && !imported.present) await journal.wrote({ kind: 'mirrored-platform', hostname: mirror.publicName, namespace, type, version, platform: `${found.os}_${found.arch}` })
      present = imported.present && present
    }
    return present ? 'present' : 'added'
  }

  /** A private provider, into its organization's registry: its key, version, SHA256SUMS, signature and zips, as a publish adds them. */
  private async importPrivate({ provider, shasums, signature, key }: Verified, report: ImportReport, journal: ImportJournal): Promise<ImportOutcome> {
    const { providers, gpgKeys, providerUploads } = this.services
    await this.ensureOrganization(provider.namespace, report, journal)
    const address = { organization: provider.namespace, registryName: 'private', namespace: provider.namespace, name: provider.type }
    const named = { organization: provider.namespace, name: provider.type }
    if (!(await this.existingProvider(provider))) {
      await providers.create(this.caller, provider.namespace, { name: provider.type, registryName: 'private' })
      await journal.wrote({ kind: 'provider', ...named })
    }
    const keyId = key.keyId || undefined
    const known = keyId ? await gpgKeys.read(this.caller, provider.namespace, keyId).catch(missing) : undefined
    let keyView = known
    if (!keyView) {
      keyView = await gpgKeys.create(this.caller, provider.namespace, key.asciiArmor)
      await journal.wrote({ kind: 'gpg-key', namespace: provider.namespace, keyId: keyView.key.keyId })
    }
    let view = (await this.existingProvider(provider))!
    let version = findProviderVersion(view.provider, provider.version)
    let added = false
    const versionIsNew = !version
    if (!version) {
      const created = await providers.createVersion(this.caller, address, { version: provider.version, keyId: keyView.key.keyId, protocols: provider.protocols })
      view = created.view
      version = created.version
      await journal.wrote({ kind: 'provider-version', ...named, version: provider.version })
    }
    const upload = async (targetId: string, file: 'shasums' | 'shasums-sig' | 'binary', body: Readable) => {
      await providerUploads.receive(providers.uploadObjectId(this.caller, view, targetId, file, false)!, body, undefined)
      added = true
    }
    if (!version.shasums) await upload(version.id, 'shasums', Readable.from([shasums]))
    if (!version.shasumsSig) await upload(version.id, 'shasums-sig', Readable.from([signature]))
    for (const found of provider.packages) {
      let platform = version.platforms.find((candidate) => candidate.os === found.os && candidate.arch === found.arch)
      if (platform?.binary) continue
      if (!platform) {
        platform = (await providers.createPlatform(this.caller, address, provider.version, { os: found.os, arch: found.arch, filename: found.filename, shasum: found.file.sha256 })).platform
        // A new version takes its platforms with it; on a version that was here, the platform goes alone.
        if (!versionIsNew) await journal.wrote({ kind: 'provider-platform', ...named, version: provider.version, os: found.os, arch: found.arch })
      }
      await upload(platform.id, 'binary', this.bundle.open(found.file))
    }
    return added ? 'added' : 'present'
  }
}

function label(module: BundledModule): string {
  return `${module.hostname}/${module.namespace}/${module.name}/${module.provider}`
}

function missing(error: unknown): undefined {
  if (error instanceof NotFoundError) return undefined
  throw error
}
