import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { moduleArchive } from '../tests/helpers/archives.js'
import { realisticModule } from './fixtures.js'
import { api, median, run, type Started } from './lib.js'

export interface PublishFigure {
  archiveBytes: number
  firstMs: number
  medianMs: number
  tarMs: number
  ratio: number
}

/**
 * Figure 3: publishing a 1 MB module (create the version, upload, wait for `ok`), against
 * unpacking the same archive with `tar` alone. Each version changes the README, so every upload
 * is a new archive that is read and documented in full; the Terraform files stay the same, as
 * they mostly do from one version to the next (their parse is reused).
 */
export async function measurePublish(homeport: Started, samples = 9): Promise<PublishFigure> {
  await api(homeport.url, 'POST', '/organizations', { data: { type: 'organizations', attributes: { name: 'publish', email: 'p@example.com' } } })
  await api(homeport.url, 'POST', '/organizations/publish/registry-modules', { data: { type: 'registry-modules', attributes: { name: 'big', provider: 'aws' } } })
  const work = await mkdtemp(join(tmpdir(), 'bench-publish-'))
  try {
    const times: number[] = []
    const tarTimes: number[] = []
    let bytes = 0
    for (let i = 0; i <= samples; i++) {
      const archive = await moduleArchive(realisticModule(30, 950 * 1024, i, 'publish'))
      bytes = archive.length
      const started = performance.now()
      const created = await api(homeport.url, 'POST', '/organizations/publish/registry-modules/private/publish/big/aws/versions', {
        data: { type: 'registry-module-versions', attributes: { version: `1.${i}.0` } }
      })
      const uploaded = await fetch(created.body.data.links.upload as string, { method: 'PUT', body: new Uint8Array(archive) })
      if (uploaded.status !== 200) throw new Error(`upload failed: ${uploaded.status}`)
      for (;;) {
        const version = await api(homeport.url, 'GET', `/organizations/publish/registry-modules/private/publish/big/aws/version?module_version=1.${i}.0`)
        const status = version.body.data.attributes.status as string
        if (status === 'ok') break
        if (status.endsWith('failed')) throw new Error(`publishing failed: ${version.body.data.attributes.error as string}`)
        await new Promise((resolve) => setTimeout(resolve, 2))
      }
      times.push(performance.now() - started)

      const file = join(work, `v${i}.tar.gz`)
      const target = join(work, `x${i}`)
      await writeFile(file, archive)
      await mkdir(target)
      const tarStarted = performance.now()
      await run('tar', ['-xzf', file, '-C', target])
      tarTimes.push(performance.now() - tarStarted)
    }
    const [first, ...rest] = times
    const medianMs = median(rest)
    const tarMs = median(tarTimes)
    return { archiveBytes: bytes, firstMs: Math.round(first!), medianMs: Math.round(medianMs), tarMs: Math.round(tarMs * 10) / 10, ratio: Math.round((medianMs / tarMs) * 100) / 100 }
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}
