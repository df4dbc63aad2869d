import { readdir, readFile, stat } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { UsageError } from '../../boot/options.js'

/** Folders a configuration's files are never read from: Terraform's own working folder, and version control. */
const SKIPPED = new Set(['.terraform', '.git', 'node_modules'])
/** Largest configuration sent (the API takes 16 MB of JSON). */
const MAX_CONFIGURATION_BYTES = 12 * 1024 * 1024

/** A configuration folder's Terraform files (its own and its local modules'), and its lock file, by relative path. */
export async function readConfiguration(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  let total = 0
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) await walk(path)
        continue
      }
      const name = relative(folder, path).split('\\').join('/')
      if (!entry.isFile() || !(/\.tf(\.json)?$/.test(entry.name) || name === '.terraform.lock.hcl')) continue
      total += (await stat(path)).size
      if (total > MAX_CONFIGURATION_BYTES) throw new Error(`${folder} holds more than ${MAX_CONFIGURATION_BYTES / 1024 / 1024} MB of Terraform files: is it the folder you run terraform init in?`)
      files[name] = await readFile(path, 'utf8')
    }
  }
  await walk(folder)
  if (!Object.keys(files).some((name) => !name.includes('/') && name !== '.terraform.lock.hcl')) {
    throw new UsageError(`${folder} has no .tf files: give the folder you run terraform init in.`)
  }
  return files
}
