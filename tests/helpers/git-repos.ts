import { execFile } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** A real git repository in a temporary folder, made and changed the way a user would. */
export class Repo {
  private constructor(readonly dir: string) {}

  /** `<parent>/<org>/<name>`, with a first commit of `files` on `main`. */
  static async create(parent: string, org: string, name: string, files: Record<string, string>): Promise<Repo> {
    const repo = new Repo(join(parent, org, name))
    await mkdir(repo.dir, { recursive: true })
    await repo.git('init', '--quiet', '--initial-branch', 'main')
    await repo.commit(files, 'first')
    return repo
  }

  async git(...args: string[]): Promise<string> {
    const { stdout } = await run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'tag.gpgSign=false', ...args], {
      cwd: this.dir
    })
    return stdout.trim()
  }

  /** Writes the files (null deletes one) and commits; returns the commit. */
  async commit(files: Record<string, string | null>, message: string): Promise<string> {
    for (const [path, text] of Object.entries(files)) {
      const full = join(this.dir, path)
      if (text === null) await rm(full, { force: true })
      else {
        await mkdir(dirname(full), { recursive: true })
        await writeFile(full, text)
      }
    }
    await this.git('add', '--all')
    await this.git('commit', '--quiet', '--allow-empty', '-m', message)
    return this.git('rev-parse', 'HEAD')
  }

  /** A lightweight tag, or an annotated one with a message. */
  async tag(name: string, annotated = false): Promise<void> {
    await this.git('tag', ...(annotated ? ['-a', '-m', name] : []), name)
  }
}
