import { dirname, resolve } from 'node:path'
import { PassThrough } from 'node:stream'
import { UsageError } from '../boot/options.js'
import { resolveDataDir } from '../data-dir/default-dir.js'
import { writeInside } from '../files/folder-writes.js'
import { openFileStore } from '../store/file/file-store.js'
import { command, DATA_DIR_OPTIONS } from './command.js'
import { HomeportClient } from './lib/client.js'

export const backup = command({
  name: 'backup',
  synopsis: '<file> [--data-dir <path>] [--token <admin token>]',
  description: 'a consistent snapshot of the data directory, taken from the running server if there is one.',
  options: DATA_DIR_OPTIONS,
  async run({ values, positionals }) {
    const [file] = positionals
    if (!file || positionals.length > 1) throw new UsageError('homeport backup takes one file.')
    const dataDir = resolveDataDir(values['data-dir'])
    const from = await backupToFile(dataDir, file, values.token)
    console.log(`Backed up ${dataDir} to ${file}${from === 'server' ? ' (from the running server)' : ''}.`)
  }
})

/**
 * From the running server when there is one (a consistent snapshot, taken without stopping it),
 * else straight from the data directory. Written to a temporary file first, so an interrupted
 * backup never looks complete.
 */
async function backupToFile(dataDir: string, file: string, token?: string): Promise<'server' | 'directory'> {
  const write = (contents: NodeJS.ReadableStream) => writeInside(dirname(resolve(file)), file, contents as AsyncIterable<Uint8Array>, { atomic: true })
  const running = await HomeportClient.running(dataDir, token)
  if (running) {
    const snapshot = await running.backup().catch((error: Error) => {
      throw new Error(`The server refused the backup: ${error.message}`)
    })
    await write(snapshot)
    return 'server'
  }
  const store = await openFileStore(dataDir)
  try {
    const through = new PassThrough()
    const written = store.backup(through).catch((error: unknown) => {
      through.destroy(error as Error)
      throw error
    })
    await Promise.all([written, write(through)])
  } finally {
    await store.close()
  }
  return 'directory'
}
