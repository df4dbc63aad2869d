import { createRequire } from 'node:module'
import { parentPort, workerData } from 'node:worker_threads'
import { Language, Parser } from 'web-tree-sitter'
import { documentedConfig, Unsure } from './documented-config.js'

/**
 * The HCL parser's worker thread (see hcl-parser.ts). A request to document a file is read with
 * tree-sitter's HCL grammar (C compiled to WebAssembly); one it is unsure of is answered `unsure`,
 * and the parser asks again for HashiCorp's reading. A request for the exact reading goes to
 * HashiCorp's parser (Go compiled to WebAssembly, @cdktn/hcl2json).
 *
 * Every WebAssembly module is compiled once for the process and handed to each worker: V8 compiles a
 * function when it first runs and optimizes it once it has run a while, and that work belongs to the
 * compiled module, so it outlives the worker (which is replaced after an idle spell).
 */

/** tree-sitter's WebAssembly, compiled once for the process (hcl-parser.ts), and the grammar's bytes, which its loader reads. */
export interface TreeSitterModules {
  runtime: WebAssembly.Module
  grammar: WebAssembly.Module
  grammarBytes: Uint8Array
}

export interface ParseRequest {
  id: number
  filename: string
  text: string
  /** HashiCorp's parser, compiled: the request wants hcl2json's whole reading of the file. */
  exact?: WebAssembly.Module
}

export type ParseReply = { id: number; result: Record<string, unknown> } | { id: number; error: string } | { id: number; unsure: string }

const fromHere = createRequire(import.meta.url)
const { runtime, grammar: compiledGrammar, grammarBytes } = workerData as TreeSitterModules
/** HashiCorp's parser, compiled, once a request has brought it. */
let compiledHashicorp: WebAssembly.Module | undefined

/**
 * The packages instantiate their WebAssembly from bytes they read; each is given the process's
 * compiled module instead: Go's (its imports are `gojs`) and the grammar's (tree-sitter's loader
 * passes on the very bytes it was given).
 */
const instantiate = WebAssembly.instantiate.bind(WebAssembly)
WebAssembly.instantiate = (async (source: BufferSource | WebAssembly.Module, imports?: WebAssembly.Imports) => {
  const module = imports && 'gojs' in imports ? compiledHashicorp : source === grammarBytes ? compiledGrammar : undefined
  if (!module) return instantiate(source as BufferSource, imports)
  return { module, instance: await instantiate(module, imports) }
}) as typeof WebAssembly.instantiate

let treeSitter: Promise<Parser> | undefined
function grammar() {
  treeSitter ??= (async () => {
    await Parser.init({
      instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
        void instantiate(runtime, imports).then((instance) => receive(instance, runtime))
        return {}
      }
    })
    const parser = new Parser()
    parser.setLanguage(await Language.load(grammarBytes))
    return parser
  })()
  return treeSitter
}

let hcl2json: ((filename: string, text: string) => Promise<Record<string, unknown>>) | undefined
function hashicorp(compiled: WebAssembly.Module) {
  compiledHashicorp = compiled
  hcl2json ??= (fromHere('@cdktn/hcl2json') as { parse: typeof hcl2json }).parse
  return hcl2json!
}

async function answer({ id, filename, text, exact }: ParseRequest): Promise<ParseReply> {
  try {
    if (exact) return { id, result: await hashicorp(exact)(filename, text) }
    const parser = await grammar()
    return { id, result: documentedConfig((piece) => parser.parse(piece), text) }
  } catch (error) {
    // Nesting deep enough to overflow the reader's stack is HashiCorp's parser's to refuse, in its words.
    if (error instanceof Unsure || error instanceof RangeError) return { id, unsure: error.message }
    return { id, error: String((error as Error | undefined)?.message ?? error) }
  }
}

parentPort!.on('message', (request: ParseRequest) => {
  void answer(request).then((reply) => parentPort!.postMessage(reply))
})
