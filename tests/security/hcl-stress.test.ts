import { afterAll, describe, expect, it } from 'vitest'
import { HclParser } from '../../src-main/server/domain/ingest/hcl-parser.js'
import { extractDocs } from '../../src-main/server/domain/ingest/terraform-docs.js'
import { createOrganization, publish, startTestServer } from '../helpers/server.js'

const deep = (depth: number) => `variable "deep" {\n  default = ${'['.repeat(depth)}${']'.repeat(depth)}\n}\n`
const huge = (variables: number) =>
  Array.from({ length: variables }, (_, i) => `variable "v${i}" {\n  type        = string\n  description = "variable number ${i}"\n  default     = "${i}"\n}\n`).join('\n')

const parser = new HclParser()
afterAll(() => parser.close())

describe('HCL that stresses the parser', () => {
  it('turns nesting deep enough to blow the stack into a warning, and parses on', async () => {
    const docs = await extractDocs(new Map([['deep.tf', deep(50_000)], ['fine.tf', 'output "fine" {\n  value = 1\n}\n']]), parser.parse.bind(parser))
    expect(docs.warnings).toEqual([expect.stringMatching(/^deep\.tf could not be parsed/)])
    expect(docs.root.outputs.map((output) => output.name)).toEqual(['fine'])
    await expect(parser.parse('after.tf', 'output "after" {\n  value = 2\n}\n')).resolves.toHaveProperty('output')
  })

  it('stops a parse that takes too long, and the next one works in a fresh worker', async () => {
    await expect(parser.parse('huge.tf', huge(40_000), 200)).rejects.toThrow(/took longer than 0\.2 s/)
    await expect(parser.parse('small.tf', 'output "x" {\n  value = 1\n}\n')).resolves.toHaveProperty('output')
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
