import { execFile, spawn } from 'node:child_process'
import { rm, stat } from 'node:fs/promises'
import { makeFolder } from '../../files/folder-writes.js'
import { dirname } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { promisify } from 'node:util'

const run = promisify(execFile)

/**
 * A git command that failed. `message` says in a few plain words what went wrong, fit for an API
 * answer; git's own output (which may name paths, hosts and accounts of this machine) stays in
 * the server log.
 */
export class GitError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'GitError'
  }
}

/** What git's error output amounts to, in words that reveal nothing of this machine. */
export function summarizeGitFailure(stderr: string): string {
  if (/could not resolve host|connection (refused|timed out)|network is unreachable|timed out|operation timed out|no route to host/i.test(stderr)) {
    return 'the repository’s host cannot be reached'
  }
  if (/permission denied|authentication failed|could not read (username|password)|access denied|access rights|returned error: 40[13]/i.test(stderr)) {
    return 'access to the repository was denied'
  }
  if (/not found|does not appear to be a git repository|does not exist|no such file or directory|not a git repository|returned error: 404/i.test(stderr)) {
    return 'there is no repository there'
  }
  if (/not a valid object name|not a tree object|unknown revision|bad revision|invalid object/i.test(stderr)) {
    return 'the repository has no such commit or folder'
  }
  return 'git could not read the repository (the server log has git’s message)'
}

/** Logs git's own words for the operator (URL credentials masked), and says what they amount to. */
function failure(command: string, stderr: string): GitError {
  console.error(`homeport: git ${command} failed: ${stderr.replace(/(\/\/)[^/@\s]*@/g, '$1***@')}`)
  return new GitError(summarizeGitFailure(stderr))
}

export interface Tag {
  name: string
  /** The commit the tag points at (annotated tags peeled). */
  commit: string
}

/**
 * The machine's git, run as a child process without a shell: arguments are passed as they are,
 * URLs and refs always after `--` or validated, so no user input can become an option or a
 * command. Only the transports a connection may name are allowed (no `ext::`), and git never
 * stops to ask for a password.
 */
const ENV = {
  ...process.env,
  GIT_TERMINAL_PROMPT: '0',
  GIT_ALLOW_PROTOCOL: 'file:git:http:https:ssh',
  GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes'
}
const TIMEOUT_MS = 120_000

/**
 * Runs git; a failure is logged, unless the command only asks a question whose answer may be no
 * (`probe`). `signal` is the background job's: shutdown's cancel ends git too (a slow fetch must
 * not hold SIGTERM).
 */
async function git(args: string[], options: { cwd?: string; probe?: boolean; signal?: AbortSignal } = {}): Promise<string> {
  const { cwd, probe = false, signal } = options
  try {
    const { stdout } = await run('git', args, { cwd, env: ENV, timeout: TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, signal })
    return stdout
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim() || (error as Error).message
    if (probe) throw new GitError(summarizeGitFailure(stderr))
    throw failure(args[0]!, stderr)
  }
}

/** A shallow clone of `url` (at `ref`, a branch or tag, when given) into `dir`. */
export async function shallowClone(url: string, dir: string, ref: string | undefined, signal?: AbortSignal): Promise<void> {
  if (ref !== undefined && (ref.startsWith('-') || !/^[A-Za-z0-9._/-]+$/.test(ref))) throw new GitError('the ref is not a branch or tag name')
  await git(['clone', '--quiet', '--depth', '1', ...(ref ? ['--branch', ref] : []), '--', url, dir], { signal })
}

/** The repository's tags and branches, asked of the remote without cloning. */
export async function listRemote(url: string, signal?: AbortSignal): Promise<{ tags: Tag[]; heads: Map<string, string> }> {
  const output = await git(['ls-remote', '--tags', '--heads', '--', url], { signal })
  const tags = new Map<string, string>()
  const heads = new Map<string, string>()
  for (const line of output.split('\n')) {
    const [commit, ref] = line.split('\t')
    if (!commit || !ref) continue
    if (ref.startsWith('refs/heads/')) heads.set(ref.slice('refs/heads/'.length), commit)
    else if (ref.startsWith('refs/tags/')) {
      const name = ref.slice('refs/tags/'.length)
      // An annotated tag is listed twice; the `^{}` line is the commit it points at.
      if (name.endsWith('^{}')) tags.set(name.slice(0, -3), commit)
      else if (!tags.has(name)) tags.set(name, commit)
    }
  }
  return { tags: [...tags].map(([name, commit]) => ({ name, commit })), heads }
}

/**
 * Keeps a bare mirror of the repository at `dir` up to date (cloned the first time, fetched
 * after), so archives of any tag or commit can be made without the network.
 */
export async function syncMirror(url: string, dir: string, signal?: AbortSignal): Promise<void> {
  const exists = await stat(dir).then(
    () => true,
    () => false
  )
  if (!exists) {
    await makeFolder(dirname(dir))
    try {
      await git(['clone', '--quiet', '--mirror', '--', url, dir], { signal })
    } catch (error) {
      await rm(dir, { recursive: true, force: true })
      throw error
    }
    return
  }
  await git(['remote', 'set-url', 'origin', '--', url], { cwd: dir, signal })
  await git(['fetch', '--quiet', '--prune', '--tags', '--force', 'origin', '+refs/heads/*:refs/heads/*'], { cwd: dir, signal })
}

/** The full commit a ref or abbreviated commit names in the mirror, if it has it. */
export async function resolveCommit(dir: string, ref: string, signal?: AbortSignal): Promise<string | undefined> {
  if (!/^[A-Za-z0-9._/-]+$/.test(ref) || ref.startsWith('-')) return undefined
  try {
    return (await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: dir, probe: true, signal })).trim() || undefined
  } catch {
    return undefined
  }
}

/** Whether the commit has the folder (`""` is the root). */
export async function hasFolder(dir: string, commit: string, folder: string, signal?: AbortSignal): Promise<boolean> {
  try {
    const type = await git(['cat-file', '-t', `${commit}:${folder}`], { cwd: dir, probe: true, signal })
    return type.trim() === 'tree'
  } catch {
    return false
  }
}

/**
 * A gzipped tar of the commit's tree (or one folder of it), with that tree at the archive root.
 * The stream fails, rather than ending short, when git does.
 */
export function archive(dir: string, commit: string, folder: string, signal?: AbortSignal): Readable {
  if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new GitError(`not a commit: ${commit}`)
  const tree = folder ? `${commit}:${folder}` : commit
  const child = spawn('git', ['archive', '--format=tar.gz', tree], { cwd: dir, env: ENV, stdio: ['ignore', 'pipe', 'pipe'], signal })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  const output = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      done(null, chunk)
    },
    flush(done) {
      void exited.then((code) => done(code === 0 ? null : failure('archive', stderr.trim() || `exit code ${code}`)))
    }
  })
  child.stdout.pipe(output)
  // Cancelled (shutdown), or git could not start: the archive fails, rather than ending short.
  child.on('error', (error) => output.destroy(error))
  // Refused by its reader (too large, say), the stream is destroyed: git must not be left blocked on a full pipe.
  output.on('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  return output
}
