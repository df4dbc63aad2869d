import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { readModuleArchive } from '../../src-main/server/domain/ingest/archive-reader.js'
import { PackageFetcher, splitSubdir } from '../../src-main/server/domain/upstream/package-fetcher.js'
import { ArchiveStore } from '../../src-main/server/store/file/archive-store.js'

const git = promisify(execFile)
let dir: string
let repo: string
let store: ArchiveStore
let fetcher: PackageFetcher

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'homeport-fetcher-'))
  repo = join(dir, 'repo')
  await mkdir(join(repo, 'modules', 'subnet'), { recursive: true })
  await writeFile(join(repo, 'main.tf'), 'output "root" {\n  value = 1\n}\n')
  await writeFile(join(repo, 'modules', 'subnet', 'main.tf'), 'output "subnet" {\n  value = 2\n}\n')
  const run = (...args: string[]) => git('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: repo })
  await run('init', '--quiet', '--initial-branch', 'main')
  await run('add', '.')
  await run('commit', '--quiet', '-m', 'first')
  await run('tag', 'v1.0.0')
  store = new ArchiveStore(join(dir, 'data'))
  await store.open()
  // The repositories here are local: this fetcher may clone file: addresses, which the server's refuses.
  fetcher = new PackageFetcher(store, 10 * 1024 * 1024, (location) => fetch(location), { gitProtocols: ['file:'] })
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function paths(sha256: string, size: number): Promise<string[]> {
  return (await readModuleArchive(store.read(sha256), size, () => false)).paths.sort()
}

describe('fetching a package a registry points at', () => {
  it('clones a git:: address at its ref and packs it without .git', async () => {
    const archive = await fetcher.fetch(`git::file://${repo}?ref=v1.0.0`)
    expect(await paths(archive.sha256, archive.size)).toEqual(['main.tf', 'modules/subnet/main.tf'])
  })

  it('packs only the //subdirectory when the address names one', async () => {
    const archive = await fetcher.fetch(`git::file://${repo}//modules/subnet?ref=v1.0.0`)
    expect(await paths(archive.sha256, archive.size)).toEqual(['main.tf'])
  })

  it('says why when it cannot', async () => {
    await expect(fetcher.fetch(`git::file://${repo}?ref=v9.9.9`)).rejects.toThrow(/Cloning .* at v9\.9\.9 failed/)
    await expect(fetcher.fetch(`git::file://${repo}//../outside?ref=v1.0.0`)).rejects.toThrow(/no folder/)
    await expect(fetcher.fetch('s3::https://s3.amazonaws.com/bucket/module.zip')).rejects.toThrow(/fetches HTTP\(S\) archives and git/)
    await expect(fetcher.fetch('https://example.com/module.zip')).rejects.toThrow(/only \.tar\.gz/)
  })

  it('refuses a git address on this machine unless told it may clone one (a registry must not make it pack local repositories)', async () => {
    const server = new PackageFetcher(store, 10 * 1024 * 1024, (location) => fetch(location))
    await expect(server.fetch(`git::file://${repo}?ref=v1.0.0`)).rejects.toThrow(/cannot mirror a package from "file:" git addresses/)
    await expect(server.fetch(`git::ext::sh -c touch% /tmp/pwned`)).rejects.toThrow()
  })

  it('splits go-getter’s //subdir from the source', () => {
    expect(splitSubdir('git::https://github.com/a/b?ref=v1')).toEqual({ source: 'git::https://github.com/a/b?ref=v1', subdir: '' })
    expect(splitSubdir('git::https://github.com/a/b//modules/x?ref=v1')).toEqual({ source: 'git::https://github.com/a/b?ref=v1', subdir: 'modules/x' })
    expect(splitSubdir('https://host/pkg.tar.gz//sub')).toEqual({ source: 'https://host/pkg.tar.gz', subdir: 'sub' })
  })
})
