import ignore from 'ignore'
import type { TarFile } from './tar'

/** Always left out of a module archive, as go-tfe's packer does: VCS data and Terraform's working folder. */
const ALWAYS_IGNORED = ['.git/', '.terraform/']

export interface FolderSelection {
  /** The folder's own name (`terraform-aws-network`). */
  folder: string
  included: TarFile[]
  excluded: string[]
  /** Whether a .terraformignore shaped the selection. */
  terraformignore: boolean
}

/** Files picked with `<input webkitdirectory>`: their relative paths start with the folder's name. */
export function filesFromInput(list: FileList): TarFile[] {
  return [...list].map((file) => ({ path: file.webkitRelativePath || file.name, file }))
}

/** Files dropped on the page, folders walked through. */
export async function filesFromDrop(transfer: DataTransfer): Promise<TarFile[]> {
  const files: TarFile[] = []
  const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject))
      files.push({ path: `${prefix}${entry.name}`, file })
      return
    }
    const reader = (entry as FileSystemDirectoryEntry).createReader()
    // readEntries returns the folder in batches until it returns none.
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject))
      if (batch.length === 0) break
      for (const child of batch) await walk(child, `${prefix}${entry.name}/`)
    }
  }
  const entries = [...transfer.items].map((item) => item.webkitGetAsEntry()).filter((entry): entry is FileSystemEntry => entry !== null)
  for (const entry of entries) await walk(entry, '')
  return files
}

/**
 * The files of a module folder that go into its archive, relative to the folder: everything
 * but `.git/`, `.terraform/` and what the folder's `.terraformignore` excludes (gitignore rules).
 */
export async function selectModuleFiles(files: TarFile[]): Promise<FolderSelection> {
  const folder = files[0]?.path.split('/')[0] ?? ''
  const inFolder = files.every((entry) => entry.path.startsWith(`${folder}/`))
  const relative = files.map((entry) => ({ path: inFolder ? entry.path.slice(folder.length + 1) : entry.path, file: entry.file }))
  const rules = ignore().add(ALWAYS_IGNORED)
  const terraformignore = relative.find((entry) => entry.path === '.terraformignore')
  if (terraformignore) rules.add(await terraformignore.file.text())
  const included: TarFile[] = []
  const excluded: string[] = []
  for (const entry of relative.sort((a, b) => a.path.localeCompare(b.path))) {
    if (rules.ignores(entry.path)) excluded.push(entry.path)
    else included.push(entry)
  }
  return { folder: inFolder ? folder : '', included, excluded, terraformignore: Boolean(terraformignore) }
}

/** `terraform-<provider>-<name>` folders name their module. */
export function guessModule(folder: string): { name: string; provider: string } {
  const match = /^terraform-([a-z0-9]+)-(.+)$/.exec(folder)
  return match ? { provider: match[1]!, name: match[2]! } : { provider: '', name: folder.replace(/[^A-Za-z0-9_-]/g, '-') }
}
