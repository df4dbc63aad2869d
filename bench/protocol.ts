import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ADMIN_TOKEN, median, paired, run, startPinned, type Started } from './lib.js'

export interface ProtocolFigure {
  endpoint: string
  homeport: { rps: number; p50: number; p99: number }
  bare: { rps: number; p50: number; p99: number }
  /** The median of the rounds' ratios (each round measures both, back to back). */
  ratio: number
  /** Each round's ratio, in the order measured. */
  rounds: number[]
}

export interface WrkResult {
  rps: number
  p50: number
  p99: number
  /** Bytes of answers (headers and bodies) a second. */
  bytesPerS: number
}

const UNITS: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }

/** wrk pinned to `cpus` (CPU 0), `connections` connections (32), for `seconds`, each answer within `timeoutS`; latencies in ms. */
export async function wrk(url: string, seconds: number, cpus = '0', connections = 32, timeoutS = 2): Promise<WrkResult> {
  const { stdout } = await run('taskset', ['-c', cpus, 'wrk', '-t1', `-c${connections}`, `-d${seconds}s`, `--timeout`, `${timeoutS}s`, '--latency', '-s', 'bench/auth.lua', url], {
    env: { ...process.env, BENCH_TOKEN: ADMIN_TOKEN },
    maxBuffer: 1024 * 1024
  })
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1])
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1]
  if (errors || /Socket errors/.test(stdout)) throw new Error(`wrk saw errors:\n${stdout}`)
  const latency = (percent: string) => {
    const match = new RegExp(`\\s${percent}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout)
    if (!match) return Number.NaN
    const value = Number(match[1])
    return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value
  }
  const transfer = /Transfer\/sec:\s+([\d.]+)([KMG]?B)/.exec(stdout)
  const bytesPerS = transfer ? Number(transfer[1]) * UNITS[transfer[2]!]! : Number.NaN
  return { rps, p50: latency('50'), p99: latency('99'), bytesPerS }
}

/**
 * Figure 1: the protocol's read paths on Homeport against a bare node:http server answering the
 * same bytes from memory, both pinned to CPU 1, measured by wrk pinned to CPU 0 in paired rounds.
 */
export async function measureProtocol(homeport: Started, paths: Record<string, string>, workDir: string, seconds = 3, rounds = 6): Promise<ProtocolFigure[]> {
  const captured = []
  for (const path of Object.values(paths)) {
    const response = await fetch(`${homeport.url}${path}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })
    // Every header Homeport answered with but those Node's server writes itself: the ceiling sends the same bytes.
    const headers: Record<string, string> = {}
    for (const [name, value] of response.headers) if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)) headers[name] = value
    captured.push({ path, status: response.status, headers, body: await response.text() })
  }
  const file = join(workDir, 'bare-responses.json')
  await writeFile(file, JSON.stringify(captured))
  const bare = await startPinned(1, [process.execPath, 'bench/bare-server.mjs', file], /Bare server listening on (\S+)/)
  try {
    const figures: ProtocolFigure[] = []
    for (const [endpoint, path] of Object.entries(paths)) {
      // Warm-up: each server's code for this path optimized before it is measured.
      await wrk(`${homeport.url}${path}`, 1)
      await wrk(`${bare.url}${path}`, 1)
      const measured = await paired(
        rounds,
        () => wrk(`${homeport.url}${path}`, seconds),
        () => wrk(`${bare.url}${path}`, seconds),
        (result) => result.rps
      )
      const summary = (results: WrkResult[]) => ({
        rps: Math.round(median(results.map((r) => r.rps))),
        p50: Math.round(median(results.map((r) => r.p50)) * 100) / 100,
        p99: Math.round(median(results.map((r) => r.p99)) * 100) / 100
      })
      figures.push({ endpoint, homeport: summary(measured.a), bare: summary(measured.b), ratio: measured.ratio, rounds: measured.ratios })
    }
    return figures
  } finally {
    await bare.stop()
  }
}
