import { spawn, type ChildProcess } from 'node:child_process'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const run = promisify(execFile)
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef'

export interface Started {
  child: ChildProcess
  url: string
  stop(): Promise<void>
}

/**
 * Starts a process pinned to one CPU (taskset), and waits for the line that says where it
 * listens: the server under test gets one core, the load generator the other.
 */
export function startPinned(cpu: number, command: string[], ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const child = spawn('taskset', ['-c', String(cpu), ...command], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time:\n${output}`)), 120_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = ready.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve({
          child,
          url: match[1]!,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done()
              child.once('exit', () => done())
              child.kill('SIGTERM')
            })
        })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited (${code}) before it was ready:\n${output}`))
    })
  })
}

/** Starts the built Homeport (node out/main/cli.js) pinned to a CPU. */
export function startHomeport(cpu: number, dataDir: string, extra: string[] = []): Promise<Started> {
  return startPinned(cpu, [process.execPath, 'out/main/cli.js', '--port', '0', '--data-dir', dataDir, '--rate-limit', '0', ...extra], /Homeport listening on (\S+)/, {
    HOMEPORT_ADMIN_TOKEN: ADMIN_TOKEN
  })
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the benchmark reads whatever document the API sends
export async function api(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${url}/api/v2${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/vnd.api+json' },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

/** Runs `tasks` with at most `limit` at once. */
export async function pool<T>(items: T[], limit: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const index = next++
        await task(items[index]!, index)
      }
    })
  )
}

/** CPU time a process has used, user and system, in clock ticks (Linux: /proc). */
export async function processTicks(pid: number): Promise<number> {
  // The command name, in brackets, may hold spaces: the fields are counted after it.
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /s, '').split(' ')
  return Number(fields[11]) + Number(fields[12])
}

/** CPU time all processors have spent busy (anything but idle and waiting on I/O), in clock ticks (Linux: /proc). */
export async function busyTicks(): Promise<number> {
  const [, ...counts] = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0]!.trim().split(/\s+/)
  const ticks = counts.map(Number)
  // user nice system idle iowait irq softirq steal (guest time is counted in user already).
  return ticks.slice(0, 8).reduce((sum, value) => sum + value, 0) - ticks[3]! - ticks[4]!
}

export interface Paired<T> {
  a: T[]
  b: T[]
  /** Each round's A / B, in the order measured. */
  ratios: number[]
  /** Their median. */
  ratio: number
}

/**
 * Measures A against B in `rounds` rounds, each measuring both back to back, in alternating order
 * (A B, B A, …), and gives the median of the rounds' ratios of `value`. These shared machines' speed
 * moves by a quarter within seconds, for anything they run: only measurements taken next to each
 * other compare (two medians of separate series, taken seconds apart, compare a fast moment with a
 * slow one), and alternating cancels a steady drift.
 */
export async function paired<T>(rounds: number, a: () => Promise<T>, b: () => Promise<T>, value: (result: T) => number): Promise<Paired<T>> {
  const as: T[] = []
  const bs: T[] = []
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      as.push(await a())
      bs.push(await b())
    } else {
      bs.push(await b())
      as.push(await a())
    }
  }
  const exact = as.map((result, round) => value(result) / value(bs[round]!))
  return { a: as, b: bs, ratios: exact.map((ratio) => Math.round(ratio * 100) / 100), ratio: Math.round(median(exact) * 100) / 100 }
}
