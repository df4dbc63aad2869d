import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { extract } from 'tar'
import { moduleArchive } from '../tests/helpers/archives.js'
import { TerraformClient } from '../tests/helpers/terraform-client.js'
import { realisticModule } from './fixtures.js'
import { ADMIN_TOKEN, api, median, paired, type Started } from './lib.js'

export interface InstallFigure {
  modules: number
  homeportMs: number
  staticMs: number
  ratio: number
}

const MODULES = 20

/**
 * Figure 2: installing 20 modules as `terraform init` does (versions, download location, HEAD
 * and GET of the archive, unpacking) against fetching and unpacking the same 20 archives from a
 * plain static file server, in paired rounds.
 */
export async function measureInstall(homeport: Started, workDir: string, rounds = 5): Promise<InstallFigure> {
  const archives: Buffer[] = []
  await api(homeport.url, 'POST', '/organizations', { data: { type: 'organizations', attributes: { name: 'install', email: 'i@example.com' } } })
  for (let m = 0; m < MODULES; m++) {
    const name = `realistic-${m}`
    const archive = await moduleArchive(realisticModule(20, 0, m, `install${m}`))
    archives.push(archive)
    await api(homeport.url, 'POST', '/organizations/install/registry-modules', { data: { type: 'registry-modules', attributes: { name, provider: 'aws' } } })
    const created = await api(homeport.url, 'POST', `/organizations/install/registry-modules/private/install/${name}/aws/versions`, {
      data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } }
    })
    await fetch(created.body.data.links.upload as string, { method: 'PUT', body: new Uint8Array(archive) })
  }
  await waitForPublished(homeport.url)

  const staticDir = join(workDir, 'static')
  await rm(staticDir, { recursive: true, force: true })
  await mkdir(staticDir, { recursive: true })
  for (const [m, archive] of archives.entries()) await writeFile(join(staticDir, `module-${m}.tar.gz`), archive)
  const files = createServer((req, res) => {
    void readFile(join(staticDir, (req.url ?? '').replace(/[^A-Za-z0-9.-]/g, ''))).then(
      (body) => {
        res.writeHead(200, { 'Content-Type': 'application/gzip', 'Content-Length': body.length })
        res.end(body)
      },
      () => {
        res.writeHead(404)
        res.end()
      }
    )
  })
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve))
  const staticUrl = `http://127.0.0.1:${(files.address() as { port: number }).port}`

  const into = await mkdtemp(join(tmpdir(), 'bench-install-'))
  const timed = async (install: (m: number, dir: string) => Promise<unknown>) => {
    const dir = await mkdtemp(join(into, 'round-'))
    const started = performance.now()
    for (let m = 0; m < MODULES; m++) await install(m, join(dir, `${m}`))
    const ms = performance.now() - started
    await rm(dir, { recursive: true, force: true })
    return ms
  }
  const fromHomeport = () => {
    // A new client each time, as each `terraform init` is: nothing cached from the round before.
    const client = new TerraformClient({
      hosts: { 'homeport.localhost': { 'modules.v1': `${homeport.url}/api/registry/v1/modules/` } },
      credentials: { 'homeport.localhost': ADMIN_TOKEN }
    })
    return timed((m, dir) => client.install(`homeport.localhost/install/realistic-${m}/aws`, '~> 1.0', dir))
  }
  const fromStatic = () =>
    timed(async (m, dir) => {
      const response = await fetch(`${staticUrl}/module-${m}.tar.gz`)
      await mkdir(dir, { recursive: true })
      await pipeline(Readable.fromWeb(response.body! as never), extract({ cwd: dir, strict: true }))
    })
  try {
    // The first of each warms both sides up.
    await fromHomeport()
    await fromStatic()
    const measured = await paired(rounds, fromHomeport, fromStatic, (ms) => ms)
    return { modules: MODULES, homeportMs: Math.round(median(measured.a)), staticMs: Math.round(median(measured.b)), ratio: measured.ratio }
  } finally {
    files.close()
    await rm(into, { recursive: true, force: true })
  }
}

async function waitForPublished(url: string): Promise<void> {
  for (;;) {
    const list = await api(url, 'GET', '/organizations/install/registry-modules?page[size]=100')
    const busy = (list.body.data as Array<{ attributes: { 'version-statuses': Array<{ status: string }> } }>).some((module) =>
      module.attributes['version-statuses'].some((entry) => entry.status !== 'ok')
    )
    if (!busy) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
