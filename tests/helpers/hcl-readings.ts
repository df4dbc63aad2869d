import { createRequire } from 'node:module'
import { Language, Parser } from 'web-tree-sitter'
import { parse as hcl2json } from '@cdktn/hcl2json'
import { documentedConfig, Unsure } from '../../src-main/server/domain/ingest/documented-config.js'
import { DOCUMENTED_BLOCKS } from '../../src-main/server/domain/ingest/terraform-docs.js'

/**
 * The two readings of a file that documentation has: tree-sitter's (documented-config.ts, in this
 * thread) and HashiCorp's (hcl2json), cut down to what documentation reads.
 */

type Json = Record<string, unknown>

let parser: Promise<Parser> | undefined

function treeSitter(): Promise<Parser> {
  parser ??= (async () => {
    await Parser.init()
    const made = new Parser()
    made.setLanguage(await Language.load(createRequire(import.meta.url).resolve('@tree-sitter-grammars/tree-sitter-hcl/tree-sitter-hcl.wasm')))
    return made
  })()
  return parser
}

/** tree-sitter's reading, or Unsure; `pieceChars` small cuts the file after every top-level block. */
export async function treeSitterReading(text: string, pieceChars?: number): Promise<Json> {
  const parser = await treeSitter()
  return documentedConfig((piece) => parser.parse(piece), text, pieceChars)
}

/** HashiCorp's reading, cut down to DOCUMENTED_BLOCKS; rejects what HCL refuses. */
export async function hashicorpReading(name: string, text: string): Promise<Json> {
  return projected(await hcl2json(name, text))
}

function projected(full: Json): Json {
  const out: Json = {}
  const bodies = (value: unknown, pick: (body: Json) => Json): unknown => {
    if (Array.isArray(value)) return value.map((body) => pick(body as Json))
    return Object.fromEntries(Object.entries(value as Json).map(([label, inner]) => [label, bodies(inner, pick)]))
  }
  for (const [kind, value] of Object.entries(full)) {
    if (!Object.hasOwn(DOCUMENTED_BLOCKS, kind)) continue
    const { attributes, blocks } = DOCUMENTED_BLOCKS[kind]!
    out[kind] = bodies(value, (body) => Object.fromEntries(Object.entries(body).filter(([name]) => attributes === 'all' || attributes.includes(name) || blocks.includes(name))))
  }
  return out
}

export { Unsure }
