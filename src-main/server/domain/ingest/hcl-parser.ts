import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { Worker } from 'node:worker_threads'
import { gunzip } from 'node:zlib'
import { Lru } from '../../../shared/lru.js'
import type { ParseReply, ParseRequest, TreeSitterModules } from './hcl-worker.js'

/** How long one file may take to parse before it is given up (a 1 MB file takes about a second with HashiCorp's parser, half that with tree-sitter). */
export const PARSE_TIMEOUT_MS = 20_000
/**
 * The WebAssembly heap grows to what the largest parse needed and never shrinks: a worker idle
 * this long is replaced, which gives its memory back between publishes.
 */
export const IDLE_RECYCLE_MS = 5_000
/**
 * Within a busy spell the heap is reused, not grown (eight 900 KB files in a row held HashiCorp's parser at 250 MB),
 * so the worker is kept. This bounds what slow growth there is.
 */
export const RECYCLE_AFTER_BYTES = 32 * 1024 * 1024

/**
 * Readings kept, weighed by their texts: 32 MB holds some thousands of the files modules are made
 * of, which is what successive versions share; the least recently read go first.
 */
const CACHE_BYTES = 32 * 1024 * 1024

const PARSER_PACKAGE = '@cdktn/hcl2json'
/**
 * Reading a tree makes many short-lived objects (a node each time one is asked for): a young
 * generation of 4 MB rather than V8's default collects them as often, at no cost measured, for 15-20 MB
 * less at the peak of an ingest.
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 4 }

interface Pending {
  resolve: (value: Reply) => void
  reject: (error: Error) => void
  timer: NodeJS.Timeout
}

let compiled: Promise<WebAssembly.Module> | undefined
let treeSitter: Promise<TreeSitterModules> | undefined

/** tree-sitter's runtime and HCL grammar, compiled once for the process and shared by every worker, as HashiCorp's parser is. */
function compiledTreeSitter(): Promise<TreeSitterModules> {
  treeSitter ??= (async () => {
    const from = createRequire(import.meta.url)
    const [runtime, grammarBytes] = await Promise.all([readFile(from.resolve('web-tree-sitter/web-tree-sitter.wasm')), readFile(from.resolve('@tree-sitter-grammars/tree-sitter-hcl/tree-sitter-hcl.wasm'))])
    const [runtimeModule, grammar] = await Promise.all([WebAssembly.compile(runtime), WebAssembly.compile(grammarBytes)])
    return { runtime: runtimeModule, grammar, grammarBytes: new Uint8Array(grammarBytes) }
  })()
  treeSitter.catch(() => (treeSitter = undefined))
  return treeSitter
}

/**
 * HashiCorp's parser's WebAssembly, compiled once for the process and shared by every worker. V8 compiles a
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

type Reply = Extract<ParseReply, { result: unknown } | { unsure: unknown }>

/**
 * HCL parsing in a worker thread, two ways: `document` reads what documentation needs with
 * tree-sitter's grammar and falls back to HashiCorp's parser for any file it is unsure of (see
 * documented-config.ts); `parse` gives HashiCorp's parser's whole reading (Go compiled to
 * WebAssembly, via @cdktn/hcl2json, the maintained fork of @cdktf/hcl2json), for readers that must
 * refuse what Terraform refuses (bundles, lock files). A file that makes either run too long or blow
 * its stack (deep nesting, a huge file) costs only the worker, which is replaced: the server goes
 * on, and the file becomes a warning.
 *
 * Successive versions of a module share most of their files, so what a file's text parses to
 * is kept (by its SHA-256): publishing the next version parses only what changed.
 */
export class HclParser {
  private worker: Worker | undefined
  private readonly pending = new Map<number, Pending>()
  private readonly parsed: Lru<string, Record<string, unknown>>
  private next = 0
  /** Bytes the current worker has parsed. */
  private workerBytes = 0
  private idleTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly timeoutMs = PARSE_TIMEOUT_MS,
    /** What the readings kept may weigh, in bytes of the texts they were read from. */
    cacheBytes = CACHE_BYTES,
    private readonly recycleAfterBytes = RECYCLE_AFTER_BYTES,
    private readonly idleMs = IDLE_RECYCLE_MS
  ) {
    this.parsed = new Lru(cacheBytes)
  }

  /** What documentation reads of a file (DOCUMENTED_BLOCKS), in hcl2json's shape. */
  async document(filename: string, text: string, timeoutMs = this.timeoutMs): Promise<Record<string, unknown>> {
    const started = performance.now()
    return this.cached(`documented:${sha256(text)}`, text, async () => {
      const reply = await this.request(filename, text, timeoutMs)
      if ('result' in reply) return reply.result
      return this.parse(filename, text, timeoutMs - (performance.now() - started))
    })
  }

  /** HashiCorp's parser's whole reading of a file, as hcl2json gives it; rejects what HCL refuses, with HCL's message. */
  async parse(filename: string, text: string, timeoutMs = this.timeoutMs): Promise<Record<string, unknown>> {
    return this.cached(`exact:${sha256(text)}`, text, async () => {
      const reply = await this.request(filename, text, timeoutMs, await compiledParser())
      if ('result' in reply) return reply.result
      throw new Error(reply.unsure)
    })
  }

  private async cached(key: string, text: string, read: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const known = this.parsed.get(key)
    if (known) return known
    const result = await read()
    // A reading holds about what its text does (UTF-16, two bytes a character): weighed so, large files cannot pile up.
    this.parsed.set(key, result, 2 * text.length)
    return result
  }

  private async request(filename: string, text: string, timeoutMs: number, exact?: WebAssembly.Module): Promise<Reply> {
    const modules = await compiledTreeSitter()
    const reply = await this.parseInWorker({ id: this.next++, filename, text, exact }, Math.max(0, Math.min(timeoutMs, this.timeoutMs)), modules)
    this.workerBytes += text.length
    if (this.pending.size === 0) {
      if (this.workerBytes >= this.recycleAfterBytes) this.recycle()
      else this.recycleWhenIdle()
    }
    return reply
  }

  private parseInWorker(request: ParseRequest, timeoutMs: number, modules: TreeSitterModules): Promise<Reply> {
    clearTimeout(this.idleTimer)
    const worker = this.ensureWorker(modules)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.reset(new Error(`parsing took longer than ${Math.round(timeoutMs / 100) / 10} s and was stopped`))
      }, timeoutMs)
      this.pending.set(request.id, { resolve, reject, timer })
      worker.postMessage(request)
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

  private ensureWorker(modules: TreeSitterModules): Worker {
    if (this.worker) return this.worker
    const workerPath = workerModule()
    const worker = workerPath.endsWith('.ts')
      ? // From the sources (the tests), the worker is TypeScript: tsx's loader is registered in it first.
        new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(pathToFileURL(workerPath).href)}) })`, { eval: true, workerData: modules, resourceLimits: WORKER_LIMITS })
      : new Worker(workerPath, { workerData: modules, resourceLimits: WORKER_LIMITS })
    worker.unref()
    worker.on('message', (reply: ParseReply) => {
      const pending = this.pending.get(reply.id)
      if (!pending) return
      clearTimeout(pending.timer)
      this.pending.delete(reply.id)
      if ('error' in reply) pending.reject(new Error(reply.error))
      else pending.resolve(reply)
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

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/**
 * The worker's module: built, `hcl-worker.js`, an entry of its own beside every chunk of the main
 * bundle (electron.vite.config.ts); from the sources, `hcl-worker.ts` beside this file.
 */
function workerModule(): string {
  const here = fileURLToPath(import.meta.url)
  return join(dirname(here), here.endsWith('.ts') ? 'hcl-worker.ts' : 'hcl-worker.js')
}
