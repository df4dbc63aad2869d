import type { Readable } from 'node:stream'
import semver from 'semver'
import { TooLargeError } from '../../../store/errors.js'
import type { Store } from '../../../store/port.js'
import { type Caller } from '../../core/access.js'
import { authorize } from '../../core/authorize.js'
import type { ArchiveKeeper } from '../../archives/archive-keeper.js'
import type { DocsCache } from '../../archives/docs-cache.js'
import { InvalidInputError, LimitExceededError, NotFoundError } from '../../core/errors.js'
import { formatBytes, InvalidArchiveError } from '../../ingest/archive-reader.js'
import type { IngestQueue } from '../../ingest/ingest-queue.js'
import type { ModuleDocs } from '../../archives/module-docs.js'
import { diffInterfaces, type InterfaceDiff } from './interface-diff.js'
import { findVersion, label, type ModuleAddress, normalizeVersion, published } from '../module-rules.js'
import type { ModuleService } from '../modules.js'

/**
 * A comparison; `from` is null for a module's first version, which has nothing before it (a preview
 * of one then says what its interface would be).
 */
export type Comparison = Omit<InterfaceDiff, 'from'> & {
  from: string | null
  warnings?: string[]
  interface?: { inputs: Array<{ name: string; type: string; required: boolean }>; outputs: string[] }
}

/**
 * The interface change between two published versions of a module (by default, a version and
 * the one before it), and before a publish, between the archive about to be published and the
 * version it would follow: see interface-diff.ts.
 */
export class VersionComparer {
  constructor(
    private readonly store: Store,
    private readonly modules: ModuleService,
    private readonly docs: DocsCache,
    private readonly ingest: IngestQueue,
    private readonly archives: ArchiveKeeper,
    private readonly maxArchiveBytes: number
  ) {}

  /** `to` (the latest when not given) against `from` (the published version before it when not given). */
  async compare(caller: Caller, address: ModuleAddress, versions: { from?: string; to?: string }): Promise<Comparison> {
    const { module } = await this.modules.read(caller, address)
    const ok = published(module)
    const pick = (version: string, which: string) => {
      const found = findVersion(module, version)
      if (found?.status !== 'ok') throw new NotFoundError(`version ${version} of ${label(address)} is not published (the ${which} of the comparison)`)
      return found
    }
    const to = versions.to === undefined ? ok[0] : pick(versions.to, 'newer side')
    if (!to) throw new NotFoundError(`${label(address)} has no published version to compare`)
    const from = versions.from === undefined ? ok.find((candidate) => semver.lt(candidate.version, to.version)) : pick(versions.from, 'older side')
    return this.diff(from && { version: from.version, docs: await this.docs.get(from.archive?.sha256) }, { version: to.version, docs: await this.docs.get(to.archive?.sha256) })
  }

  /**
   * Before a publish: the archive that would become `version`, documented as ingest would, against
   * the published version it would follow. Kept only while it is read: nothing is published.
   */
  async preview(caller: Caller, address: ModuleAddress, version: string, archive: Readable): Promise<Comparison> {
    // A module's first version is checked before the module exists: it follows nothing.
    const view = await this.modules.readIfAny(caller, address)
    if (!authorize(caller, 'publish module', view.org)) throw new NotFoundError(`registry module ${label(address)} not found`)
    const normalized = normalizeVersion(version)
    if (!normalized) throw new InvalidInputError(`"${version}" is not a semantic version.`, 'version')
    const stored = await this.store.archives.put(archive, this.maxArchiveBytes).catch((error: unknown) => {
      if (error instanceof TooLargeError) throw new LimitExceededError(`The archive is larger than ${formatBytes(this.maxArchiveBytes)}, the most Homeport accepts.`)
      throw error
    })
    const unpin = this.archives.pin(stored.sha256)
    let docs: ModuleDocs
    try {
      docs = await this.ingest.documentation(stored.sha256, stored.size).catch((error: unknown) => {
        if (error instanceof InvalidArchiveError) throw new InvalidInputError(error.message, 'archive')
        throw error
      })
    } finally {
      unpin()
      await this.archives.release([stored.sha256])
    }
    const from = view.module && published(view.module).find((candidate) => semver.lt(candidate.version, normalized))
    const comparison = this.diff(from && { version: from.version, docs: await this.docs.get(from.archive?.sha256) }, { version: normalized, docs })
    // What ingest would warn about, too (files that do not parse, no Terraform files); a first version's interface in place of a change.
    const shape = from ? {} : { interface: { inputs: docs.root.inputs.map(({ name, type, required }) => ({ name, type, required })), outputs: docs.root.outputs.map((output) => output.name) } }
    return { ...comparison, warnings: docs.warnings, ...shape }
  }

  private diff(from: { version: string; docs: ModuleDocs } | undefined, to: { version: string; docs: ModuleDocs }): Comparison {
    if (!from) return { from: null, to: to.version, impact: 'none', step: 'none', changes: [], verdict: null }
    return diffInterfaces(from, to)
  }
}
