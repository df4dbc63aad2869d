import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/** How long one file may take to parse before it is given up (a 1 MB file takes about a second). */
export const PARSE_TIMEOUT_MS = 20_000
/**
 * The WebAssembly heap grows to what the largest parse needed and never shrinks: a worker idle
 * this long is replaced, which gives its memory back between publishes.
 */
export const IDLE_RECYCLE_MS = 5_000
/**
 * Within a busy spell the heap is reused, not grown (eight 900 KB files in a row held it at 250 MB),
 * so the worker is kept: a fresh one parses its first megabyte three to four times slower (its
 * heap grows, V8 tiers its code up). This bounds what slow growth there is.
 */
export const RECYCLE_AFTER_BYTES = 32 * 1024 * 1024

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
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

/**
 * HashiCorp's HCL parser (Go compiled to WebAssembly, via @cdktf/hcl2json) in a worker thread,
 * loaded once. A file that makes it run too long or blow its stack (deep nesting, a huge file)
 * costs only the worker, which is replaced: the server goes on, and the file becomes a warning.
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
    const result = await this.parseInWorker(filename, text, Math.min(timeoutMs, this.timeoutMs))
    this.workerBytes += text.length
    if (this.pending.size === 0) {
      if (this.workerBytes >= this.recycleAfterBytes) this.recycle()
      else this.recycleWhenIdle()
    }
    if (this.parsed.size >= this.cacheSize) this.parsed.delete(this.parsed.keys().next().value!)
    this.parsed.set(key, result)
    return result
  }

  private parseInWorker(filename: string, text: string, timeoutMs: number): Promise<Record<string, unknown>> {
    clearTimeout(this.idleTimer)
    const worker = this.ensureWorker()
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

  private ensureWorker(): Worker {
    if (this.worker) return this.worker
    const parser = createRequire(import.meta.url).resolve('@cdktf/hcl2json')
    const worker = new Worker(WORKER, { eval: true, workerData: { parser }, resourceLimits: { maxOldGenerationSizeMb: 512 } })
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
