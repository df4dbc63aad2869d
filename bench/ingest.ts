import { readFile } from 'node:fs/promises'
import { moduleArchive } from '../tests/helpers/archives.js'
import { largeTerraform } from './fixtures.js'
import { api, type Started } from './lib.js'

export interface IngestFigure {
  terraformMb: number
  ingestMs: number
  msPerMb: number
  peakRssMb: number
}

/**
 * Figure 7: documenting an archive heavy with Terraform (six files of 900 KB, the most one
 * archive's parse budget allows in files of that size), from upload to `ok`, per MB of `.tf`;
 * and the server's peak resident memory meanwhile, sampled every 20 ms from /proc.
 */
export async function measureIngest(homeport: Started): Promise<IngestFigure> {
  await api(homeport.url, 'POST', '/organizations', { data: { type: 'organizations', attributes: { name: 'ingest', email: 'i@example.com' } } })
  await api(homeport.url, 'POST', '/organizations/ingest/registry-modules', { data: { type: 'registry-modules', attributes: { name: 'heavy', provider: 'aws' } } })
  const files: Record<string, string> = { 'README.md': '# Heavy\n' }
  for (let i = 0; i < 6; i++) files[`inputs_${i}.tf`] = largeTerraform(900 * 1024, `f${i}`)
  const terraformBytes = Object.entries(files).reduce((sum, [name, text]) => sum + (name.endsWith('.tf') ? text.length : 0), 0)
  const archive = await moduleArchive(files)

  let peak = 0
  const status = `/proc/${homeport.child.pid}/status`
  const sample = async () => {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(await readFile(status, 'utf8').catch(() => ''))?.[1] ?? 0)
    peak = Math.max(peak, kb * 1024)
  }
  const sampler = setInterval(() => void sample(), 20)
  try {
    const started = performance.now()
    const created = await api(homeport.url, 'POST', '/organizations/ingest/registry-modules/private/ingest/heavy/aws/versions', {
      data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } }
    })
    const uploaded = await fetch(created.body.data.links.upload as string, { method: 'PUT', body: new Uint8Array(archive) })
    if (uploaded.status !== 200) throw new Error(`upload failed: ${uploaded.status}`)
    for (;;) {
      const version = await api(homeport.url, 'GET', '/organizations/ingest/registry-modules/private/ingest/heavy/aws/version?module_version=1.0.0')
      const state = version.body.data.attributes.status as string
      if (state === 'ok') {
        const warnings = version.body.data.attributes.warnings as string[]
        if (warnings.length > 0) throw new Error(`the heavy module was documented only in part: ${warnings.join(' ')}`)
        break
      }
      if (state.endsWith('failed')) throw new Error(`ingest failed: ${version.body.data.attributes.error as string}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const ingestMs = performance.now() - started
    const terraformMb = terraformBytes / (1024 * 1024)
    await sample()
    return {
      terraformMb: Math.round(terraformMb * 10) / 10,
      ingestMs: Math.round(ingestMs),
      msPerMb: Math.round(ingestMs / terraformMb),
      peakRssMb: Math.round(peak / (1024 * 1024))
    }
  } finally {
    clearInterval(sampler)
  }
}
