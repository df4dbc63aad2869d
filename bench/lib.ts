import { spawn, type ChildProcess } from 'node:child_process'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
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
