import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { parseServeOptions, UsageError } from '../boot/options.js'
import { startServer } from '../boot/start-server.js'
import { resolveDataDir } from '../data-dir/default-dir.js'
import { importAttributes } from '../api/management/bundles.js'
import type { BundleImportAttributes } from '../../shared/wire/bundles.js'
import { command, DATA_DIR_OPTIONS } from './command.js'
import { HomeportClient } from './lib/client.js'

export const importBundle = command({
  name: 'import',
  synopsis: '<file.hpbundle> [--organization <name>] [--data-dir <path>] [--token <admin token>]',
  description: `checks a bundle whole (every file's SHA-256, every provider's signature) and then adds what is missing to
  the Homeport running on the data directory, or to the data directory itself when none runs.`,
  options: { ...DATA_DIR_OPTIONS, organization: { type: 'string' } },
  async run({ values, positionals }) {
    const [file] = positionals
    if (!file || positionals.length > 1) throw new UsageError('homeport import takes one bundle file.')
    await importFile(resolveDataDir(values['data-dir']), values.token, file, values.organization)
  }
})

/**
 * Into the Homeport running on the data directory, or, when none is, into the data directory
 * itself: Homeport is opened for the import with the settings `serve` reads from HOMEPORT_*
 * variables (the upstream names the mirror the providers go into), on a loopback port of its own
 * choosing, and closed once the imported modules are documented.
 */
async function importFile(dataDir: string, token: string | undefined, file: string, organization: string | undefined): Promise<void> {
  await stat(file).catch(() => {
    throw new UsageError(`${file} cannot be read.`)
  })
  const running = await HomeportClient.running(dataDir, token)
  let report: BundleImportAttributes
  if (running) report = (await running.importBundle(createReadStream(file), organization)).data.attributes
  else {
    const server = await startServer({ ...parseServeOptions([], process.env), dataDir, port: 0, host: '127.0.0.1' })
    try {
      report = importAttributes(await server.services.bundles.import({ kind: 'site-admin' }, createReadStream(file), { organization }))
    } finally {
      await server.close()
    }
  }
  for (const name of report['created-organizations']) console.log(`Created organization ${name}.`)
  for (const module of report.modules) console.log(`${module.outcome === 'added' ? 'Added' : 'Already here'}: module ${module.source} ${module.version}`)
  for (const provider of report.providers) console.log(`${provider.outcome === 'added' ? 'Added' : 'Already here'}: provider ${provider.source} ${provider.version} (${provider.platforms.join(', ')})`)
  for (const note of report.notes) console.log(`Note: ${note}`)
  console.log(`Imported ${file}${running ? '' : ` into ${dataDir}`}: public modules are curated by ${report.organization}.`)
}
