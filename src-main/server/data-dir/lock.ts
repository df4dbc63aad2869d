import { randomBytes } from 'node:crypto'
import { readdir, readFile, unlink } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { linkInside, writeInside } from '../files/folder-writes.js'
import { LOCK_FILE } from './layout.js'

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number, lockPath: string) {
    super(
      `The data directory ${dataDir} is in use by another Homeport (process ${pid}). ` +
        `Stop that one first, or choose another --data-dir. If no such process is running, delete ${lockPath}.`
    )
    this.name = 'DataDirInUseError'
  }
}

/**
 * Makes sure one Homeport at a time writes to a data directory: the desktop app and
 * `npm run serve` share the default one. The lock holds the owner's pid, so a lock left by a
 * killed process is recognised as stale at once (a lock refreshed by mtime would make a restart
 * after a crash wait).
 *
 * Taking it is atomic: the pid is written to a private file first, which is then hard-linked
 * into place (link fails if the lock exists), so no one ever reads a lock without its pid. A
 * stale lock is removed only by the process that wins `homeport.lock.takeover-<dead pid>` (also
 * made by link), and only if it still names that pid: of many processes racing over one stale
 * lock, exactly one removes it, and a fresh lock is never mistaken for the stale one.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockPath = resolve(dataDir, LOCK_FILE)
  if (heldHere.has(lockPath)) throw new DataDirInUseError(dataDir, process.pid, lockPath)
  const mine = `${lockPath}.${process.pid}-${randomBytes(6).toString('hex')}`
  await writeInside(dataDir, mine, String(process.pid), { exclusive: true })
  try {
    for (let attempt = 0; attempt < 20; attempt++) {
      if (await linked(mine, lockPath)) {
        heldHere.add(lockPath)
        await sweepLeftovers(dataDir)
        return async () => {
          heldHere.delete(lockPath)
          await unlink(lockPath).catch(() => undefined)
        }
      }
      const owner = await pidIn(lockPath)
      // Gone meanwhile (its owner stopped, or a takeover removed it): try again.
      if (owner === undefined) continue
      // Our own pid in a lock we do not hold is a leftover from an earlier process that had it.
      if (owner !== process.pid && isRunning(owner)) throw new DataDirInUseError(dataDir, owner, lockPath)
      await removeStale(lockPath, owner, mine)
    }
    throw new Error(`Could not take the lock ${lockPath}: other Homeports keep taking and releasing it.`)
  } finally {
    await unlink(mine).catch(() => undefined)
  }
}

/** Removes the lock of dead process `owner`, if this process wins the right to (see lockDataDir). */
async function removeStale(lockPath: string, owner: number, mine: string): Promise<void> {
  const takeover = `${lockPath}.takeover-${owner}`
  if (!(await linked(mine, takeover))) {
    // Another process is taking over. Only if it died doing so is its claim cleared, for a later try.
    const claimant = await pidIn(takeover)
    if (claimant !== undefined && claimant !== process.pid && !isRunning(claimant)) await unlink(takeover).catch(() => undefined)
    await new Promise((wait) => setTimeout(wait, 5))
    return
  }
  try {
    // While the takeover file exists nobody else removes this lock, and no new lock can be linked
    // over it: if it still names the dead owner, it is the stale one.
    if ((await pidIn(lockPath)) === owner) {
      // A read-only folder must say so, not "file exists".
      await unlink(lockPath).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error
      })
    }
  } finally {
    await unlink(takeover).catch(() => undefined)
  }
}

/** Private lock files of processes that died while taking the lock. */
async function sweepLeftovers(dataDir: string): Promise<void> {
  for (const name of await readdir(dataDir).catch(() => [])) {
    const pid = /^homeport\.lock\.(\d+)-[0-9a-f]+$/.exec(name)?.[1]
    if (pid !== undefined && Number(pid) !== process.pid && !isRunning(Number(pid))) await unlink(join(dataDir, name)).catch(() => undefined)
  }
}

/** Hard-links `from` to `to`; false when `to` exists already. */
async function linked(from: string, to: string): Promise<boolean> {
  try {
    await linkInside(from, dirname(to), to)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

/** The pid a lock file names; undefined when there is no such file. */
async function pidIn(path: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(path, 'utf8'), 10)
    // Unreadable content cannot come from lockDataDir: treat it as a dead owner's.
    return Number.isInteger(pid) ? pid : -1
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/** Locks this process holds: a second server in the same process must not share a data dir either. */
const heldHere = new Set<string>()

function isRunning(pid: number): boolean {
  if (pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
