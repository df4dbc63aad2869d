import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startHomeport } from './lib.js'
import { seedThroughApi } from './seed.js'
import { measureProtocol } from './protocol.js'
const dir = mkdtempSync(join(tmpdir(), 'seed-'))
const server = await startHomeport(1, join(dir, 'data'))
await seedThroughApi(server.url, 'bench', 30, 20, () => {})
const figures = await measureProtocol(server, {
  versions: '/api/registry/v1/modules/bench/module-00010/aws/versions',
  detail: '/api/registry/v1/modules/bench/module-00010/aws/1.19.0',
  download: '/api/registry/v1/modules/bench/module-00010/aws/1.19.0/download'
}, dir, 3, 1)
console.log(JSON.stringify(figures, null, 1))
await server.stop()
