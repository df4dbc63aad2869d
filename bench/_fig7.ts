import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { measureIngest } from './ingest.js'
import { startHomeport } from './lib.js'
const dir = await mkdtemp(join(tmpdir(), 'fig7-'))
const homeport = await startHomeport(1, dir)
try { console.log(await measureIngest(homeport)) } finally { homeport.child.kill() }
