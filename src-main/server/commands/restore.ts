import { UsageError } from '../boot/options.js'
import { resolveDataDir } from '../data-dir/default-dir.js'
import { restoreBackup } from '../store/file/restore.js'
import { command } from './command.js'

export const restore = command({
  name: 'restore',
  synopsis: '<file> [--data-dir <path>] [--accept-unverified]',
  description: `checks a backup, then puts it in place of the data directory (kept beside it); stop Homeport first.
  A backup this installation did not make (or that changed) restores only with --accept-unverified.`,
  options: { 'data-dir': { type: 'string' }, 'accept-unverified': { type: 'boolean' } },
  async run({ values, positionals }) {
    const [file] = positionals
    if (!file || positionals.length > 1) throw new UsageError('homeport restore takes one file.')
    const dataDir = resolveDataDir(values['data-dir'])
    const { kept, provenance } = await restoreBackup(file, dataDir, { acceptUnverified: values['accept-unverified'] === true })
    console.log(`Restored ${file} into ${dataDir}.${kept ? ` The previous data is kept in ${kept}.` : ''}`)
    console.log(
      provenance === 'signed'
        ? 'The backup was made by this installation and has not changed since.'
        : 'The backup is intact, but this installation did not make it: you vouched for where it came from. Replace team tokens you did not create.'
    )
  }
})
