import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { Worker } from 'node:worker_threads'
import { gunzip } from 'node:zlib'

/** How long one file may take to parse before it is given up (a 1 MB file takes about a second). */
export const PARSE_TIMEOUT_MS = 20_000
/**
 * The WebAssembly heap grows to what the largest parse needed and never shrinks: a worker idle
 * this long is replaced, which gives its memory back between publishes.
 */
export const IDLE_RECYCLE_MS = 5_000
/**
 * Within a busy spell the heap is reused, not grown (eight 900 KB files in a row held it at 250 MB),
 * so the worker is kept. This bounds what slow growth there is.
 */
export const RECYCLE_AFTER_BYTES = 32 * 1024 * 1024

const PARSER_PACKAGE = '@cdktn/hcl2json'

/**
 * The worker hands the package's bridge the process's compiled parser (see compiledParser) in
 * place of compiling its own copy of the bytes it reads: what V8 has optimized in it then
 * outlives the worker.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const instantiate = WebAssembly.instantiate
WebAssembly.instantiate = async (_bytes, imports) => ({ module: workerData.compiled, instance: await instantiate(workerData.compiled, imports) })
const { parse } = require(workerData.parser)
parentPort.on('message', async ({ id, filename, text }) => {
  try {
    parentPort.postMessage({ id, result: await parse(filename, text) })
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) })
  }
})
`

interface Pending {
  resolve: (value: Record<string, unknown>) => void
  reject: (error: Error) => void
  timer: NodeJS.Timeout
}

let compiled: Promise<WebAssembly.Module> | undefined

/**
 * The parser's WebAssembly, compiled once for the process and shared by every worker. V8 compiles a
 * function the first time it runs and optimizes it once it has run a while; that work belongs to the
 * compiled module, so once one worker has parsed, the next ones parse at full speed from their first
 * file. A worker that compiled its own copy parsed its first 900 KB in 2.6-3.0 s against 0.9-1.1 s
 * warm, and paid that again after every idle recycle, that is, on nearly every publish.
 */
function compiledParser(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const packageDir = dirname(createRequire(import.meta.url).resolve(`${PARSER_PACKAGE}/package.json`))
    const bytes = await promisify(gunzip)(await readFile(join(packageDir, 'main.wasm.gz')))
    return WebAssembly.compile(bytes)
  })()
  compiled.catch(() => (compiled = undefined))
  return compiled
}

/**
 * HashiCorp's HCL parser (Go compiled to WebAssembly, via @cdktn/hcl2json, the maintained fork of
 * @cdktf/hcl2json) in a worker thread. A file that makes it run too long or blow its stack (deep
 * nesting, a huge file) costs only the worker, which is replaced: the server goes on, and the file
 * becomes a warning.
 *
 * Successive versions of a module share most of their files, so what a file's text parses to
 * is kept (by its SHA-256): publishing the next version parses only what changed.
 */
export class HclParser {
  private worker: Worker | undefined
  private readonly pending = new Map<number, Pending>()
  private readonly parsed = new Map<string, Record<string, unknown>>()
  private next = 0
  /** Bytes the current worker has parsed. */
  private workerBytes = 0
  private idleTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly timeoutMs = PARSE_TIMEOUT_MS,
    private readonly cacheSize = 5000,
    private readonly recycleAfterBytes = RECYCLE_AFTER_BYTES,
    private readonly idleMs = IDLE_RECYCLE_MS
  ) {}

  async parse(filename: string, text: string, timeoutMs = this.timeoutMs): Promise<Record<string, unknown>> {
    const key = createHash('sha256').update(text).digest('hex')
    const known = this.parsed.get(key)
    if (known) return known
    const module = await compiledParser()
    const result = await this.parseInWorker(filename, text, Math.min(timeoutMs, this.timeoutMs), module)
    this.workerBytes += text.length
    if (this.pending.size === 0) {
      if (this.workerBytes >= this.recycleAfterBytes) this.recycle()
      else this.recycleWhenIdle()
    }
    if (this.parsed.size >= this.cacheSize) this.parsed.delete(this.parsed.keys().next().value!)
    this.parsed.set(key, result)
    return result
  }

  private parseInWorker(filename: string, text: string, timeoutMs: number, module: WebAssembly.Module): Promise<Record<string, unknown>> {
    clearTimeout(this.idleTimer)
    const worker = this.ensureWorker(module)
    const id = this.next++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.reset(new Error(`parsing took longer than ${Math.round(timeoutMs / 100) / 10} s and was stopped`))
      }, timeoutMs)
      this.pending.set(id, { resolve, reject, timer })
      worker.postMessage({ id, filename, text })
    })
  }

  /** Stops the worker (the server is shutting down). */
  async close(): Promise<void> {
    const worker = this.worker
    this.reset(new Error('the parser was stopped'))
    await worker?.terminate()
  }

  /** Recycles the worker once it has had nothing to parse for idleMs (a parse meanwhile cancels it). */
  private recycleWhenIdle(): void {
    clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(() => {
      if (this.pending.size === 0) this.recycle()
    }, this.idleMs)
    this.idleTimer.unref()
  }

  /** Replaces the worker (it is idle) with none: the next parse starts a fresh one, with a small heap. */
  private recycle(): void {
    clearTimeout(this.idleTimer)
    const worker = this.worker
    this.worker = undefined
    this.workerBytes = 0
    void worker?.terminate()
  }

  private ensureWorker(module: WebAssembly.Module): Worker {
    if (this.worker) return this.worker
    const parser = createRequire(import.meta.url).resolve(PARSER_PACKAGE)
    const worker = new Worker(WORKER, { eval: true, workerData: { parser, compiled: module }, resourceLimits: { maxOldGenerationSizeMb: 512 } })
    worker.unref()
    worker.on('message', ({ id, result, error }: { id: number; result?: Record<string, unknown>; error?: string }) => {
      const pending = this.pending.get(id)
      if (!pending) return
      clearTimeout(pending.timer)
      this.pending.delete(id)
      if (error !== undefined) pending.reject(new Error(error))
      else pending.resolve(result ?? {})
    })
    worker.on('error', (error) => this.reset(error))
    worker.on('exit', () => {
      if (this.worker === worker) this.reset(new Error('the parser stopped unexpectedly'))
    })
    this.worker = worker
    return worker
  }

  private reset(reason: Error): void {
    clearTimeout(this.idleTimer)
    const worker = this.worker
    this.worker = undefined
    this.workerBytes = 0
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer)
      pending.reject(reason)
      this.pending.delete(id)
    }
    void worker?.terminate()
  }
}
