import { afterAll, describe, expect, it } from 'vitest'
import { Readable } from 'node:stream'
import { DEFAULT_ARCHIVE_LIMITS, InvalidArchiveError, readModuleArchive } from '../../src-main/server/domain/ingest/archive-reader.js'
import { extractDocs, isDocumentationFile } from '../../src-main/server/domain/ingest/terraform-docs.js'
import { readmeDescription as describeReadme } from '../../src-main/shared/readme-description.js'
import { HclParser } from '../../src-main/server/domain/ingest/hcl-parser.js'
import { gzip, moduleArchive, NETWORK_MODULE, rawTar } from '../helpers/archives.js'

const parser = new HclParser()
afterAll(() => parser.close())

async function read(archive: Buffer, limits = DEFAULT_ARCHIVE_LIMITS) {
  return readModuleArchive(Readable.from([archive]), archive.length, isDocumentationFile, limits)
}

async function refusal(archive: Buffer, limits = DEFAULT_ARCHIVE_LIMITS): Promise<string> {
  const error = await read(archive, limits).then(
    () => undefined,
    (caught: unknown) => caught
  )
  expect(error).toBeInstanceOf(InvalidArchiveError)
  return (error as Error).message
}

describe('documentation files', () => {
  it('are the Terraform files and READMEs of the root, submodules and examples', () => {
    for (const path of ['main.tf', 'x.tf.json', 'README.md', 'readme', 'modules/a/main.tf', 'examples/b/README.md']) {
      expect(isDocumentationFile(path)).toBe(true)
    }
    for (const path of ['main.tfvars', 'modules/a/b/main.tf', 'scripts/run.sh', 'test/main.tf', 'modules/main.tf']) {
      expect(isDocumentationFile(path)).toBe(false)
    }
  })

  it('include the root’s change log, by the names release tools give it, and no part’s', () => {
    for (const path of ['CHANGELOG.md', 'changelog.md', 'CHANGES.md', 'HISTORY.md', 'CHANGELOG']) expect(isDocumentationFile(path)).toBe(true)
    for (const path of ['modules/a/CHANGELOG.md', 'docs/CHANGELOG.md', 'CHANGELOG.txt']) expect(isDocumentationFile(path)).toBe(false)
  })
})

describe('the change log', () => {
  it('is the root’s CHANGELOG.md, kept whole as Markdown; a module without one has ""', async () => {
    const changelog = '# Changelog\n\n## [5.8.1](https://github.com/x/y/compare/v5.8.0...v5.8.1) (2024-05-10)\n\n### Bug Fixes\n\n* Keep `azs` ordered ([#1053](https://github.com/x/y/issues/1053))\n'
    const withLog = await read(await moduleArchive({ ...NETWORK_MODULE, 'CHANGELOG.md': changelog, 'modules/subnet/CHANGELOG.md': '# not this one\n' }))
    expect((await extractDocs(withLog.files, parser.parse.bind(parser))).changelog).toBe(changelog)
    const without = await read(await moduleArchive(NETWORK_MODULE))
    expect((await extractDocs(without.files, parser.parse.bind(parser))).changelog).toBe('')
  })
})

describe('extracting documentation', () => {
  it('documents the root module, submodules and examples as terraform-config-inspect does', async () => {
    const contents = await read(await moduleArchive(NETWORK_MODULE))
    const docs = await extractDocs(contents.files, parser.parse.bind(parser))
    expect(docs.warnings).toEqual([])
    expect(docs.root.path).toBe('')
    expect(docs.root.empty).toBe(false)
    expect(docs.root.readme).toContain('# Network')
    expect(docs.root.inputs).toEqual([
      { name: 'cidr_block', type: 'string', description: "The VPC's CIDR block.\nMust not overlap with peered networks.\n", default: '', required: true, sensitive: false },
      { name: 'db_password', type: 'string', description: '', default: '', required: true, sensitive: true },
      { name: 'region', type: 'string', description: 'AWS region', default: '"us-east-1"', required: false, sensitive: false },
      {
        name: 'subnets',
        type: 'map(object({\n    cidr = string\n    public = optional(bool, false)\n  }))',
        description: '',
        default: '{}',
        required: false,
        sensitive: false
      }
    ])
    expect(docs.root.outputs).toEqual([
      { name: 'secret', description: '', sensitive: true },
      { name: 'vpc_id', description: 'The VPC id', sensitive: false }
    ])
    expect(docs.root.resources).toEqual([
      { name: 'this', type: 'aws_subnet' },
      { name: 'this', type: 'aws_vpc' }
    ])
    expect(docs.root.providers).toEqual([{ name: 'aws', namespace: 'hashicorp', source: 'hashicorp/aws', version: '>= 5.0' }])
    expect(docs.root.dependencies).toEqual([{ name: 'labels', source: 'cloudposse/label/null', version: '0.25.0' }])
    expect(docs.root.requiredCore).toEqual(['>= 1.5'])

    expect(docs.submodules.map((part) => part.path)).toEqual(['modules/subnet'])
    expect(docs.submodules[0]!.readme).toContain('# Subnet')
    expect(docs.submodules[0]!.inputs.map((input) => input.name)).toEqual(['vpc_id'])
    expect(docs.submodules[0]!.outputs.map((output) => output.name)).toEqual(['id'])
    expect(docs.submodules[0]!.providers).toEqual([{ name: 'aws', namespace: 'hashicorp', source: 'hashicorp/aws', version: '' }])

    expect(docs.examples.map((part) => part.path)).toEqual(['examples/basic'])
    expect(docs.examples[0]!.dependencies).toEqual([{ name: 'network', source: '../..', version: '' }])
  })

  it('handles every construct Terraform allows: provider functions, checks, imports, complex defaults, legacy requirements', async () => {
    const docs = await extractDocs(
      new Map([
        [
          'main.tf',
          `terraform {
  required_providers {
    google = "~> 4.0"
    acme = { source = "registry.example.com/acme/acme", version = "1.2.3", configuration_aliases = [acme.west] }
  }
}
variable "complex" {
  default = { a = [1, 2], b = "x", c = null }
}
variable "nothing" {
  default = null
}
resource "acme_thing" "a" {
  provider = acme.west
}
data "http" "page" {
  url = "https://example.com"
}
locals {
  arn = provider::aws::arn_parse("arn:aws:iam::123456789012:root")
  rendered = <<EOF
%{ for x in [1, 2] }line \${x}
%{ endfor }
EOF
}
check "health" {
  assert {
    condition     = true
    error_message = "never"
  }
}
import {
  to = acme_thing.a
  id = "a"
}
moved {
  from = acme_thing.old
  to   = acme_thing.a
}
ephemeral "random_password" "p" {
  length = 16
}
/* block comment */
// line comment
output "arn" {
  value = local.arn
}
`
        ]
      ]),
      parser.parse.bind(parser)
    )
    expect(docs.warnings).toEqual([])
    const inputs = Object.fromEntries(docs.root.inputs.map((input) => [input.name, input]))
    expect(JSON.parse(inputs.complex!.default)).toEqual({ a: [1, 2], b: 'x', c: null })
    expect(inputs.nothing).toMatchObject({ default: 'null', required: false })
    expect(docs.root.resources).toEqual([{ name: 'a', type: 'acme_thing' }])
    expect(docs.root.providers).toEqual([
      { name: 'acme', namespace: 'acme', source: 'registry.example.com/acme/acme', version: '1.2.3' },
      { name: 'google', namespace: 'hashicorp', source: 'hashicorp/google', version: '~> 4.0' },
      { name: 'http', namespace: 'hashicorp', source: 'hashicorp/http', version: '' }
    ])
  })

  it('turns a file that does not parse into a warning, and marks a folder without Terraform files empty', async () => {
    const docs = await extractDocs(
      new Map([
        ['README.md', '# Docs only'],
        ['modules/broken/main.tf', 'variable "x" {\n  default = "unterminated\n}\n'],
        ['modules/broken/ok.tf', 'output "fine" {\n  value = 1\n}\n']
      ]),
      parser.parse.bind(parser)
    )
    expect(docs.root.empty).toBe(true)
    expect(docs.root.readme).toBe('# Docs only')
    // A collection of submodules (terraform-aws-iam) is empty at its root by design: no warning of it.
    expect(docs.warnings).toHaveLength(1)
    expect(docs.warnings[0]).toMatch(/^modules\/broken\/main\.tf could not be parsed.*Invalid multi-line string/)
    expect(docs.submodules[0]!.outputs.map((output) => output.name)).toEqual(['fine'])
  })

  it('warns of an empty root when no submodule holds Terraform either (the module packed inside a folder)', async () => {
    const docs = await extractDocs(new Map([['terraform-aws-vpc/main.tf', 'variable "x" {}\n'], ['modules/notes/README.md', '# Notes']]), parser.parse.bind(parser))
    expect(docs.root.empty).toBe(true)
    expect(docs.warnings).toEqual([expect.stringMatching(/no Terraform files at its root/)])
  })
})

describe('reading archives safely', () => {
  it('refuses absolute paths, .., links out of the root and devices', async () => {
    expect(await refusal(gzip(rawTar([{ path: '/etc/passwd', content: 'x' }])))).toMatch(/absolute path/)
    expect(await refusal(gzip(rawTar([{ path: '../outside.tf', content: 'x' }])))).toMatch(/climbs out/)
    expect(await refusal(gzip(rawTar([{ path: 'a/../../outside.tf', content: 'x' }])))).toMatch(/climbs out/)
    expect(await refusal(gzip(rawTar([{ path: 'link', type: '2', linkpath: '../../etc/passwd' }])))).toMatch(/outside the module root/)
    expect(await refusal(gzip(rawTar([{ path: 'link', type: '2', linkpath: '/etc/passwd' }])))).toMatch(/outside the module root/)
    expect(await refusal(gzip(rawTar([{ path: 'hard', type: '1', linkpath: '../x' }])))).toMatch(/outside the module root/)
    expect(await refusal(gzip(rawTar([{ path: 'dev', type: '3' }])))).toMatch(/CharacterDevice/)
    expect(await refusal(gzip(rawTar([{ path: 'fifo', type: '6' }])))).toMatch(/FIFO/)
  })

  it('accepts links that stay inside the root, and reads only regular files', async () => {
    const contents = await read(
      gzip(
        rawTar([
          { path: 'main.tf', content: 'output "a" {\n  value = 1\n}\n' },
          { path: 'modules/x/shared.tf', type: '2', linkpath: '../../main.tf' },
          { path: 'copy.tf', type: '1', linkpath: 'main.tf' }
        ])
      )
    )
    expect([...contents.files.keys()]).toEqual(['main.tf'])
  })

  it('refuses what is not a gzipped tar, or is cut short', async () => {
    expect(await refusal(Buffer.from('just some text, not an archive'))).toMatch(/not a gzip-compressed tar/)
    const archive = await moduleArchive(NETWORK_MODULE)
    expect(await refusal(archive.subarray(0, archive.length - 40))).toMatch(/truncated/)
    expect(await refusal(gzip(Buffer.from('x'.repeat(5000))))).toBe('The archive is not a valid tar file (checksum failure).')
    expect(await refusal(gzip(rawTar([])))).toMatch(/holds no files/)
  })

  it('stops at too many entries, too many bytes, and a decompression bomb', async () => {
    const many = gzip(rawTar(Array.from({ length: 101 }, (_, i) => ({ path: `f${i}.txt`, content: 'x' }))))
    expect(await refusal(many, { ...DEFAULT_ARCHIVE_LIMITS, maxEntries: 100 })).toMatch(/more than 100 entries/)
    const big = gzip(rawTar([{ path: 'big.bin', content: Buffer.alloc(2 * 1024 * 1024) }]))
    expect(await refusal(big, { ...DEFAULT_ARCHIVE_LIMITS, maxUnpackedBytes: 1024 * 1024 })).toMatch(/unpacks to more than 1 MB/)
    // 64 MB of zeros gzip to about 64 KB: a thousandfold expansion.
    const bomb = gzip(rawTar([{ path: 'zeros.bin', content: Buffer.alloc(64 * 1024 * 1024) }]))
    expect(await refusal(bomb)).toMatch(/decompression bomb/)
  })

  it('skips a documentation file above the size limit with a warning', async () => {
    const contents = await read(gzip(rawTar([{ path: 'huge.tf', content: '#'.repeat(2000) }, { path: 'main.tf', content: '' }])), {
      ...DEFAULT_ARCHIVE_LIMITS,
      maxTextFileBytes: 1000
    })
    expect([...contents.files.keys()]).toEqual(['main.tf'])
    expect(contents.warnings[0]).toMatch(/huge\.tf is larger than/)
  })
})

describe('the description', () => {
  it('is the README’s first paragraph of prose, as plain text', () => {
    expect(
      describeReadme(
        '# Network\n\n[![CI](https://ci/badge.svg)](https://ci)\n\n<!-- note -->\nCreates a **VPC** with [subnets](docs/subnets.md)\nand routes.\n\n## Usage\n'
      )
    ).toBe('Creates a VPC with subnets and routes.')
    expect(describeReadme('# Only a title\n')).toBe('')
    expect(describeReadme('')).toBe('')
    const long = describeReadme('word '.repeat(100))
    expect(long.length).toBeLessThanOrEqual(300)
    expect(long.endsWith('…')).toBe(true)
  })
})
