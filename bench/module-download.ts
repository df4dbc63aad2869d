import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { moduleArchive } from '../tests/helpers/archives.js'
import { realisticModule } from './fixtures.js'
import { ADMIN_TOKEN, api, median, paired, startPinned, type Started } from './lib.js'
import { wrk } from './protocol.js'

export interface ModuleArchiveFigure {
  archiveKb: number
  homeportRps: number
  staticRps: number
  ratio: number
}

/** The sizes measured: the small end and the large end of the module archives people publish. */
const ASSET_BYTES = [40 * 1024, 1024 * 1024]

/**
 * Figure 12: a module archive fetched from its signed location (as `terraform init` does once the
 * protocol gave it), requests a second by wrk pinned to CPU 0 with 32 connections, against a
 * static file server streaming the same file; both servers on CPU 1, in paired rounds. wrk sends
 * the benchmark's token, which Terraform does not send to a download location: Koa authenticates
 * it on the first download, and the fast path takes the rest (signed-files.ts).
 */
export async function measureModuleArchives(homeport: Started, workDir: string, rounds = 4): Promise<ModuleArchiveFigure[]> {
  await api(homeport.url, 'POST', '/organizations', { data: { type: 'organizations', attributes: { name: 'archives', email: 'a@example.com' } } })
  const figures: ModuleArchiveFigure[] = []
  for (const assetBytes of ASSET_BYTES) {
    const name = `asset-${assetBytes}`
    // A realistic module with a diagram that does not compress, so the archive is about its size.
    const archive = await moduleArchive(realisticModule(4, assetBytes, 0, name.replace('-', '_')))
    await api(homeport.url, 'POST', '/organizations/archives/registry-modules', { data: { type: 'registry-modules', attributes: { name, provider: 'aws' } } })
    const created = await api(homeport.url, 'POST', `/organizations/archives/registry-modules/private/archives/${name}/aws/versions`, {
      data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } }
    })
    const uploaded = await fetch(created.body.data.links.upload as string, { method: 'PUT', body: new Uint8Array(archive) })
    if (uploaded.status !== 200) throw new Error(`upload failed: ${uploaded.status}`)
    const location = await downloadLocation(homeport, `/api/registry/v1/modules/archives/${name}/aws/1.0.0/download`)
    const file = join(workDir, `${name}.tar.gz`)
    await writeFile(file, archive)
    const files = await startPinned(1, [process.execPath, 'bench/static-server.mjs', file], /Static server listening on (\S+)/)
    try {
      await wrk(location, 1)
      await wrk(files.url, 1)
      const measured = await paired(
        rounds,
        () => wrk(location, 3),
        () => wrk(files.url, 3),
        (result) => result.rps
      )
      figures.push({
        archiveKb: Math.round(archive.length / 1024),
        homeportRps: Math.round(median(measured.a.map((result) => result.rps))),
        staticRps: Math.round(median(measured.b.map((result) => result.rps))),
        ratio: measured.ratio
      })
    } finally {
      await files.stop()
    }
  }
  return figures
}

/** The signed location the protocol answers with, once the version is published. */
async function downloadLocation(homeport: Started, path: string): Promise<string> {
  for (;;) {
    const response = await fetch(`${homeport.url}${path}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })
    const location = response.headers.get('x-terraform-get')
    if (response.status === 204 && location) return new URL(location, homeport.url).toString()
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
