import { afterAll, describe, expect, it } from 'vitest'
import { HclParser } from '../../src-main/server/domain/ingest/hcl-parser.js'
import { extractDocs } from '../../src-main/server/domain/ingest/terraform-docs.js'
import { eventually } from '../helpers/eventually.js'
import { createOrganization, publish, startTestServer } from '../helpers/server.js'

const deep = (depth: number) => `variable "deep" {\n  default = ${'['.repeat(depth)}${']'.repeat(depth)}\n}\n`
const huge = (variables: number) =>
  Array.from({ length: variables }, (_, i) => `variable "v${i}" {\n  type        = string\n  description = "variable number ${i}"\n  default     = "${i}"\n}\n`).join('\n')

const parser = new HclParser()
afterAll(() => parser.close())

// Both readings: the documentation's (tree-sitter, HashiCorp's parser when unsure) and HashiCorp's alone.
describe.each(['document', 'parse'] as const)('HCL that stresses the parser (%s)', (method) => {
  const read = (filename: string, text: string, timeoutMs?: number) => parser[method](filename, text, timeoutMs)

  it('turns nesting deep enough to blow the stack into a warning, and parses on', async () => {
    const docs = await extractDocs(new Map([['deep.tf', deep(50_000)], ['fine.tf', 'output "fine" {\n  value = 1\n}\n']]), read)
    expect(docs.warnings).toEqual([expect.stringMatching(/^deep\.tf could not be parsed/)])
    expect(docs.root.outputs.map((output) => output.name)).toEqual(['fine'])
    await expect(read('after.tf', 'output "after" {\n  value = 2\n}\n')).resolves.toHaveProperty('output')
  })

  it('stops a parse that takes too long, and the next one works in a fresh worker', async () => {
    await expect(read('huge.tf', huge(40_000), 200)).rejects.toThrow(/took longer than 0\.2 s/)
    await expect(read('small.tf', 'output "x" {\n  value = 1\n}\n')).resolves.toHaveProperty('output')
  })
})

/**
 * Reads 800 KB of variables with `read` (after a first small file, which starts the worker), then waits
 * until the process holds less than `megabytes` more than before it.
 */
async function holdsLessThan(megabytes: number, read: (filename: string, text: string) => Promise<Record<string, unknown>>): Promise<void> {
  await read('warm.tf', 'variable "warm" {}\n')
  const before = process.memoryUsage().rss
  const parsed = await read('big.tf', `${huge(9000)}\nvariable "marker" {}\n`)
  expect(Object.keys(parsed.variable as object)).toContain('marker')
  await eventually(() => expect(process.memoryUsage().rss - before).toBeLessThan(megabytes * 1024 * 1024), { timeoutMs: 5000 })
}

// HashiCorp's parser: its WebAssembly heap, once grown, stays with the worker until the worker is replaced.
describe('HashiCorp’s parser’s memory', () => {
  // Kept, the WebAssembly heap of a 1 MB parse holds more than 150 MB; replaced, it is gone.
  const givesMemoryBack = async (parser: HclParser) => {
    try {
      await holdsLessThan(80, parser.parse.bind(parser))
      await expect(parser.parse('after.tf', 'output "after" {\n  value = 2\n}\n')).resolves.toHaveProperty('output')
    } finally {
      await parser.close()
    }
  }

  it('is given back once the parser has parsed its share: the worker is replaced, and parsing goes on', async () => {
    await givesMemoryBack(new HclParser(20_000, 0, 256 * 1024, 60_000))
  })

  it('is given back once the parser is idle: the worker is replaced, and parsing goes on', async () => {
    await givesMemoryBack(new HclParser(20_000, 0, Number.POSITIVE_INFINITY, 0))
  })
})

describe('the documentation’s reading’s memory', () => {
  it('stays small however large the file: it is parsed in pieces, and the worker is not replaced for it', async () => {
    const kept = new HclParser(20_000, 0, Number.POSITIVE_INFINITY, 60_000)
    try {
      // Whole, tree-sitter's tree of these 800 KB took 87 MB more.
      await holdsLessThan(64, kept.document.bind(kept))
    } finally {
      await kept.close()
    }
  })
})

describe('HCL that stresses the parser', () => {

  it('documents within a budget per archive: a file too large, and files past the budget, are left out with a warning', async () => {
    const files = new Map([
      ['big.tf', huge(3000)],
      ['a.tf', 'variable "a" {\n  type = string\n}\n'],
      ['b.tf', 'variable "b" {\n  type = string\n}\n'],
      ['c.tf', 'variable "c" {\n  type = string\n}\n']
    ])
    const docs = await extractDocs(files, parser.parse.bind(parser), { maxFileBytes: 64 * 1024, maxTotalBytes: 60, maxTotalMs: 60_000 })
    expect(docs.root.inputs.map((input) => input.name)).toEqual(['a'])
    expect(docs.warnings).toEqual([
      expect.stringMatching(/^big\.tf is larger than 64 KB, more than Homeport documents in one file/),
      expect.stringMatching(/^The documentation is partial: .* so 2 files were left out: b\.tf, c\.tf\./)
    ])
    // Out of time: what is left is left out, and the time given to a parse is what remains.
    const late = await extractDocs(files, parser.parse.bind(parser), { maxFileBytes: 64 * 1024, maxTotalBytes: 1024 * 1024, maxTotalMs: 0 })
    expect(late.root.inputs).toEqual([])
    expect(late.warnings[1]).toMatch(/3 files were left out/)
  })

  it('publishes a module whose file cannot be parsed, with a warning, and the server stays up', async () => {
    const test = await startTestServer()
    try {
      await createOrganization(test, 'acme')
      const { entry } = await publish(test, 'acme', 'stress', 'null', '1.0.0', { 'deep.tf': deep(50_000), 'main.tf': 'output "x" {\n  value = 1\n}\n' })
      expect(entry.status).toBe('ok')
      const version = await test.api('GET', '/organizations/acme/registry-modules/private/acme/stress/null/version?module_version=1.0.0')
      expect(version.body.data.attributes.warnings[0]).toMatch(/deep\.tf could not be parsed/)
      expect((await test.api('GET', '/organizations/acme')).status).toBe(200)
    } finally {
      await test.close()
    }
  })
})
