import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { makeSigningKey, sha256, sign } from '../tests/helpers/providers.js'
import { ADMIN_TOKEN, api, median, paired, startPinned, type Started } from './lib.js'
import { wrk } from './protocol.js'

export interface ProviderDownloadFigure {
  zipMb: number
  homeportMbPerS: number
  staticMbPerS: number
  /** Homeport's first download, before any other (a PostgreSQL replica's archive cache is cold then). */
  firstMbPerS: number
  ratio: number
  /** 32 downloads at once: MB/s in all, against the static server's. */
  concurrent: { homeportMbPerS: number; staticMbPerS: number; ratio: number }
  /** How much the server's resident memory grew while serving the downloads, 32 at once included. */
  rssGrowthMb: number
}

const ZIP_MB = 100

/**
 * Figure 8: downloading a 100 MB provider zip from Homeport (its signed location, as Terraform
 * fetches it) against a static file server streaming the same file from disk, both pinned to
 * CPU 1, by wrk pinned to CPU 0 (the method of figure 1: a client in this process measured its own
 * speed as much as the servers'): one download at a time, in paired rounds, then 32 at once.
 * Homeport's resident memory is sampled meanwhile: the zip is streamed, never held.
 */
export async function measureProviderDownload(homeport: Started, workDir: string, { rounds = 5, settle }: { rounds?: number; settle?: () => Promise<void> } = {}): Promise<ProviderDownloadFigure> {
  const key = await makeSigningKey('Bench')
  const zip = Buffer.from(zipSync({ 'terraform-provider-big_v1.0.0': [randomBytes(ZIP_MB * 1024 * 1024), { level: 0, os: 3, attrs: (0o100755 << 16) >>> 0 }] }))
  const filename = 'terraform-provider-big_1.0.0_linux_amd64.zip'
  const sums = Buffer.from(`${sha256(zip)}  ${filename}\n`)
  await api(homeport.url, 'POST', '/organizations', { data: { type: 'organizations', attributes: { name: 'providers', email: 'p@example.com' } } })
  await fetch(`${homeport.url}/api/registry/private/v2/gpg-keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/vnd.api+json' },
    body: JSON.stringify({ data: { type: 'gpg-keys', attributes: { namespace: 'providers', 'ascii-armor': key.publicArmor } } })
  })
  await api(homeport.url, 'POST', '/organizations/providers/registry-providers', { data: { type: 'registry-providers', attributes: { name: 'big', namespace: 'providers', 'registry-name': 'private' } } })
  const path = '/organizations/providers/registry-providers/private/providers/big'
  const version = await api(homeport.url, 'POST', `${path}/versions`, { data: { type: 'registry-provider-versions', attributes: { version: '1.0.0', 'key-id': key.keyId } } })
  await fetch(version.body.data.links['shasums-upload'] as string, { method: 'PUT', body: new Uint8Array(sums) })
  await fetch(version.body.data.links['shasums-sig-upload'] as string, { method: 'PUT', body: new Uint8Array(await sign(sums, key)) })
  const platform = await api(homeport.url, 'POST', `${path}/versions/1.0.0/platforms`, {
    data: { type: 'registry-provider-platforms', attributes: { os: 'linux', arch: 'amd64', filename, shasum: sha256(zip) } }
  })
  const uploaded = await fetch(platform.body.data.links['provider-binary-upload'] as string, { method: 'PUT', body: new Uint8Array(zip) })
  if (uploaded.status !== 200) throw new Error(`the zip was refused: ${await uploaded.text()}`)
  const download = (await (
    await fetch(`${homeport.url}/api/registry/v1/providers/providers/big/1.0.0/download/linux/amd64`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })
  ).json()) as { download_url: string }
  const homeportUrl = new URL(download.download_url, homeport.url).toString()
  await settle?.()

  const file = join(workDir, filename)
  await writeFile(file, zip)
  const files = await startPinned(1, [process.execPath, 'bench/static-server.mjs', file], /Static server listening on (\S+)/)
  const rss = async () => Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${homeport.child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
  let peak = 0
  const sampler = setInterval(() => void rss().then((value) => (peak = Math.max(peak, value))), 20)
  try {
    const timed = async (url: string) => {
      const started = performance.now()
      const response = await fetch(url)
      let bytes = 0
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length
      if (bytes !== zip.length) throw new Error(`${url} gave ${bytes} bytes`)
      return performance.now() - started
    }
    const firstMs = await timed(homeportUrl)
    await timed(files.url)
    const baseline = await rss()
    peak = baseline
    const measured = await paired(
      rounds,
      () => wrk(homeportUrl, 3, '0', 1),
      () => wrk(files.url, 3, '0', 1),
      (result) => result.bytesPerS
    )
    const concurrentHomeport = (await wrk(homeportUrl, 10, '0', 32, 60)).bytesPerS
    const concurrentStatic = (await wrk(files.url, 10, '0', 32, 60)).bytesPerS
    const mbPerS = (bytesPerS: number) => Math.round((bytesPerS / (1024 * 1024)) * 10) / 10
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100
    return {
      zipMb: Math.round(zip.length / (1024 * 1024)),
      homeportMbPerS: mbPerS(median(measured.a.map((result) => result.bytesPerS))),
      staticMbPerS: mbPerS(median(measured.b.map((result) => result.bytesPerS))),
      firstMbPerS: mbPerS(zip.length / (firstMs / 1000)),
      ratio: measured.ratio,
      concurrent: { homeportMbPerS: mbPerS(concurrentHomeport), staticMbPerS: mbPerS(concurrentStatic), ratio: ratio(concurrentHomeport, concurrentStatic) },
      rssGrowthMb: Math.round((peak - baseline) / (1024 * 1024))
    }
  } finally {
    clearInterval(sampler)
    await files.stop()
  }
}
