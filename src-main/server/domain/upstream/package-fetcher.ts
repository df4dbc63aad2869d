import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, posix } from 'node:path'
import { Readable } from 'node:stream'
import { create } from 'tar'
import type { Archives } from '../../store/port.js'
import type { ArchiveRef } from '../../store/records.js'
import { InvalidInputError } from '../core/errors.js'
import { GitError, shallowClone } from '../vcs/git.js'

/**
 * Brings a module package that a registry points at (a go-getter address) into the archive
 * store as a .tar.gz with the module at its root: an HTTP(S) archive is streamed in as it is;
 * a `git::` address is cloned at its ref and packed. This is how a public module version is
 * mirrored for air-gapped use.
 */
export class PackageFetcher {
  constructor(
    private readonly archives: Archives,
    private readonly maxArchiveBytes: number,
    private readonly fetchHttp: (location: string) => Promise<Response>,
    private readonly options: {
      /**
       * The transports a registry may point git at. Not `file:` by default: an upstream that named a
       * repository on this machine would have Homeport pack it and serve it as a module.
       */
      gitProtocols?: readonly string[]
      /** Aborted when Homeport stops (`Background.stopping`): a clone in flight ends with it. */
      stopping?: AbortSignal
    } = {}
  ) {}

  async fetch(location: string): Promise<ArchiveRef> {
    const { source, subdir } = splitSubdir(location)
    if (source.startsWith('git::')) return this.fromGit(source.slice('git::'.length), subdir)
    if (/^https:\/\/github\.com\/[^/]+\/[^/?]+(\.git)?(\?.*)?$/.test(source) && !/\.(tar\.gz|tgz)(\?|$)/.test(source)) {
      return this.fromGit(source, subdir)
    }
    if (!/^https?:\/\//.test(source)) {
      throw new InvalidInputError(`Homeport cannot mirror a package from "${location}": it fetches HTTP(S) archives and git repositories.`)
    }
    if (subdir) throw new InvalidInputError(`Homeport cannot mirror "${location}": a //subdirectory of an archive is not supported.`)
    const url = new URL(source)
    if (!/\.(tar\.gz|tgz)$/.test(url.pathname) && url.searchParams.get('archive') !== 'tar.gz') {
      throw new InvalidInputError(`Homeport cannot mirror "${location}": only .tar.gz archives are supported.`)
    }
    const response = await this.fetchHttp(source)
    return this.archives.put(Readable.fromWeb(response.body! as never), this.maxArchiveBytes)
  }

  private async fromGit(address: string, subdir: string): Promise<ArchiveRef> {
    const url = new URL(address.replace(/^git@([^:]+):/, 'ssh://git@$1/'))
    const protocols = this.options.gitProtocols ?? ['https:', 'ssh:', 'git:']
    if (!protocols.includes(url.protocol)) {
      throw new InvalidInputError(`Homeport cannot mirror a package from "${url.protocol}" git addresses: it clones over ${protocols.map((protocol) => protocol.slice(0, -1)).join(', ')} only.`)
    }
    const ref = url.searchParams.get('ref') ?? undefined
    url.search = ''
    const dir = await mkdtemp(join(tmpdir(), 'homeport-mirror-'))
    try {
      await shallowClone(url.toString(), dir, ref, this.options.stopping)
      const root = subdir ? join(dir, posix.normalize(subdir)) : dir
      if (!root.startsWith(dir) || !(await stat(root).then((s) => s.isDirectory(), () => false))) {
        throw new InvalidInputError(`The repository has no folder "${subdir}".`)
      }
      const entries = (await readdir(root)).filter((entry) => entry !== '.git')
      const archive = create({ cwd: root, gzip: true, portable: true, follow: false }, entries)
      return await this.archives.put(Readable.from(archive as AsyncIterable<Buffer>), this.maxArchiveBytes)
    } catch (error) {
      if (!(error instanceof GitError)) throw error
      throw new InvalidInputError(`Cloning ${url.toString()}${ref ? ` at ${ref}` : ''} failed: ${error.message}.`)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }
}

/** go-getter's `//subdir` suffix, which follows the scheme's own `//`. */
export function splitSubdir(location: string): { source: string; subdir: string } {
  const schemeEnd = location.indexOf('://')
  const searchFrom = schemeEnd === -1 ? 0 : schemeEnd + 3
  const at = location.indexOf('//', searchFrom)
  if (at === -1) return { source: location, subdir: '' }
  let subdir = location.slice(at + 2)
  let source = location.slice(0, at)
  // A query after the subdirectory belongs to the source (`…//modules/x?ref=v1`).
  const query = subdir.indexOf('?')
  if (query !== -1) {
    source += subdir.slice(query)
    subdir = subdir.slice(0, query)
  }
  return { source, subdir }
}
