import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startHomeport } from './lib.js'
import { measureProtocol } from './protocol.js'
import { seedThroughApi } from './seed.js'
const work = await mkdtemp(join(tmpdir(), 'proto-'))
const homeport = await startHomeport(1, join(work, 'registry'))
try {
  await seedThroughApi(homeport.url, 'bench', 20, 20, () => undefined)
  const module = 'module-00010'
  const figures = await measureProtocol(homeport, {
    'list versions': `/api/registry/v1/modules/bench/${module}/aws/versions`,
    'module detail': `/api/registry/v1/modules/bench/${module}/aws/1.19.0`,
    download: `/api/registry/v1/modules/bench/${module}/aws/1.19.0/download`
  }, work, Number(process.env.SECONDS ?? 3), 2)
  for (const f of figures) console.log(f.endpoint, f.homeport.rps, f.bare.rps, f.ratio)
} finally { await homeport.stop() }
export {}
