import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startPinned, ADMIN_TOKEN } from './lib.js'
import { measureIngest } from './ingest.js'
const work = await mkdtemp(join(tmpdir(), 'ing-'))
const extra = (process.env.NODEFLAGS ?? '').split(' ').filter(Boolean)
const homeport = await startPinned(1, [process.execPath, ...extra, 'out/main/cli.js', '--port', '0', '--data-dir', join(work, 'r'), '--rate-limit', '0'], /Homeport listening on (\S+)/, { HOMEPORT_ADMIN_TOKEN: ADMIN_TOKEN })
try {
  console.log(await measureIngest(homeport))
} finally { await homeport.stop() }
export {}
