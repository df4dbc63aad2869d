import { afterAll, describe, expect, it } from 'vitest'
import { readFile } from 'node:fs/promises'
import { execFileSync } from 'node:child_process'
import { HclParser } from '../../src-main/server/domain/ingest/hcl-parser.js'
import { extractDocs, inspect } from '../../src-main/server/domain/ingest/terraform-docs.js'
import { NETWORK_MODULE } from '../helpers/archives.js'
import { hashicorpReading, treeSitterReading, Unsure } from '../helpers/hcl-readings.js'
import { vpcModule } from '../../e2e/support/vpc-module.js'
import { largeTerraform, realisticModule } from '../../bench/fixtures.js'

/**
 * The documentation's reading of HCL (tree-sitter's grammar, documented-config.ts) against HashiCorp's
 * parser (hcl2json): for every file it reads, the same JSON, key order included, for what
 * documentation reads; for every file HCL refuses, Unsure, so that HashiCorp's parser gives its error.
 * tests/security/fuzz-hcl.test.ts compares them on generated files.
 */

async function expectSameReading(name: string, text: string) {
  const exact = await hashicorpReading(name, text)
  let ours: Record<string, unknown>
  try {
    ours = await treeSitterReading(text)
  } catch (error) {
    throw new Error(`${name}: the tree-sitter reading declined (${(error as Error).message}), though HCL reads the file`, { cause: error })
  }
  expect(JSON.stringify(ours), name).toBe(JSON.stringify(exact))
  expect(inspect([ours]), name).toEqual(inspect([exact]))
  // Read in pieces cut after every top-level block (and after every line of a lone `}` a heredoc or a
  // badly indented block has), the same.
  expect(JSON.stringify(await treeSitterReading(text, 1)), `${name}, in pieces`).toBe(JSON.stringify(exact))
}

const TRICKY = `
terraform {
  required_version = ">= 1.5, < 2.0"
  required_providers {
    aws = { source = "hashicorp/aws", version = ">= 5.0" }
    null = {
      source = "hashicorp/null"
    }
    legacy = "~> 1.0"
  }
}

terraform {
  required_providers {
    aws = { version = "< 6.0" }
  }
}

variable "z_last" {}
variable "a_first" { default = 1 }
variable "numbers" {
  default = [0, -1, 1.5, -2.25, 1.0e3, 007, 12345678901234567890, 0.1]
}
variable "flags" {
  type      = bool
  default   = !true
  sensitive = true
}
variable "nothing" {
  default = null
}
variable "keys" {
  default = {
    b = 1
    a = 2
    "c d" = 3
    10 = "ten"
    2 = "two"
    12345678901234567890 = "big"
    007 = "padded"
    true = "yes"
    "\${x}" = 4
    (var.k) = 5
    a.b = 6
    "Ä" = 7
    "Z" = 8
    b = "later wins"
  }
}
variable "templates" {
  default = {
    plain    = "plain \\"quoted\\" \\\\ back \\t tab \\n newline \\u00e9 \\U0001F600"
    escaped  = "$\${not} %%{not}"
    wrapped  = "\${var.x}"
    literal  = "\${true}"
    number   = "\${1.5}"
    numbers  = "\${007} \${1.0e3} \${0.1} \${12345678901234567890}"
    inner    = "a\${"b"}c"
    cond     = "x\${var.a ? "y" : var.b}z"
    alone    = "\${var.a ? "y" : "z"}"
    dir_if   = "%{ if var.a }yes%{ else }no%{ endif }!"
    dir_if2  = "%{if var.a}only%{endif}"
    dir_for  = "%{ for k, v in var.m }\${k}=\${v},%{ endfor }"
    dir_for2 = "%{for v in [1, 2]}\${v}%{endfor}"
    strip    = "a  \${~ var.x ~}  b"
    strip2   = "a %{~ if true ~} b %{~ endif ~} c"
    empty    = ""
    spaced   = "\${ var.x }"
    nested   = { deep = [{ list = [[], {}] }] }
    func     = max(1, 2)
    call     = "\${jsonencode({ a = 1 })}"
    paren    = (var.a)
    splat    = var.list[*].id
    index    = var.map["k"]
    legacy   = var.list.0
    hexish   = var.a0x1
    arn      = "arn:aws:iam::aws:policy/ReadOnlyAccess"
    provided = provider::aws::arn_parse(var.arn)
    cond2    = var.a ? 1 : 2
    for_list = [for x in var.l : upper(x) if x != ""]
    for_map  = { for k, v in var.m : k => v... }
    math     = 1 + 2 * 3
    neg      = -var.x
    negstr   = -"1"
    heredoc  = <<EOT
  keeps
    its
  indentation \\n \${var.x} $\${y}
EOT
    flush = <<-EOT
      trimmed
        two more
      \${var.x} start
      mid \${var.y} dle

      after a blank line
    EOT
    flush2 = <<-EOT
    \${var.a} first
      second
    EOT
    json = <<-JSON
      {"a": 1}
    JSON
  }
}
variable "description" {
  description = <<-EOT
    A description in a heredoc, with a [link](https://example.com/a/very/long/path?with=query&and=more#anchor).

    | Name | Description |
    |------|-------------|
    | a    | b           |
  EOT
  type = map(object({
    name = string # a comment inside the type
    size = optional(number, 3) // another
    /* and a block comment */
    tags = optional(map(string), {})
  }))
}
variable "any" { type = any }
variable "dup" { default = 1 }
variable "dup" { default = 2 }

output "id" {
  description = "The ID."
  value       = aws_vpc.this.id
  sensitive   = true
}
output "unicode" { description = "Zürich ☃ 😀 — “quotes”" }

resource "aws_vpc" "this" {
  cidr_block = var.cidr
  provider   = aws.west
  tags = {
    Name = "x"
  }
  lifecycle {
    create_before_destroy = true
  }
  dynamic "ingress" {
    for_each = var.rules
    content {
      from_port = ingress.value.port
    }
  }
}
resource "aws_subnet" "a" { count = 2 }
data "aws_region" "current" {}
data "http" "x" { provider = http.other }

module "net" {
  source  = "app.terraform.io/acme/network/aws"
  version = "~> 1.2"
  name    = "x"
}
module "local" { source = "./modules/x" }

provider "aws" {
  region  = "us-east-1"
  version = "~> 4.0"
}
provider "aws" {
  alias = "west"
}

locals {
  ignored = { a = 1 }
}
unlabelled_attribute = 1
moved {
  from = a.b
  to   = a.c
}
check "health" {
  assert {
    condition     = true
    error_message = "x"
  }
}
removed {
  from = aws_instance.x
}
import {
  to = aws_instance.y
  id = "i-123"
}
`

/** Blocks that a file read in pieces is cut between, a JSON heredoc among them whose lone `}` is no place to cut. */
const PIECES = 'output "a" {\n  value = 1\n}\n\nvariable "policy" {\n  default = <<EOF\n{\n  "a": 1\n}\nEOF\n}\n\n'

/** Files HCL refuses: each must be declined, and keep HashiCorp's error. */
const REFUSED: Record<string, string> = {
  'newline in a string': 'variable "x" {\n  default = "un\nterminated"\n}\n',
  'unterminated string': 'variable "x" {\n  default = "unterminated\n}\n',
  'two arguments on a line': 'variable "x" {\n  type = string default = "a"\n}\n',
  'argument then brace': 'variable "x" {\n  default = "a" }\n',
  'expression across lines': 'variable "x" {\n  default = var.a\n    + 1\n}\n',
  'conditional across lines': 'output "x" {\n  value = var.a\n    ? 1 : 2\n}\n',
  'expression on the next line': 'variable "x" {\n  default =\n    1\n}\n',
  'argument given twice': 'variable "x" {\n  default = 1\n  default = 2\n}\n',
  'argument twice, deep': 'resource "a" "b" {\n  c {\n    d = 1\n    d = 2\n  }\n}\n',
  'bad escape': 'variable "x" {\n  default = "\\q"\n}\n',
  'brace on the next line': 'variable "x"\n{\n}\n',
  'two arguments in a one-line block': 'variable "x" { type = string, default = "a" }\n',
  'a block in a one-line block': 'resource "a" "b" { c {} }\n',
  'a one-line block ended later': 'variable "x" { default = 1\n}\n',
  'hex number': 'variable "x" {\n  default = 0x10\n}\n',
  'unclosed block': 'variable "x" {\n',
  'unclosed if': 'variable "x" {\n  default = "%{ if true }a"\n}\n',
  'stray endif': 'variable "x" {\n  default = "a%{ endif }"\n}\n',
  'empty interpolation': 'variable "x" {\n  default = "a${}"\n}\n',
  'block then argument on its line': 'variable "x" {\n} y = 1\n',
  'missing equals': 'variable "x" {\n  default 1\n}\n',
  'object elements without a comma': 'variable "x" {\n  default = { a = 1 b = 2 }\n}\n',
  'a name with ::': 'output "x" {\n  value = a::b.c\n}\n',
  'text after a heredoc marker': 'variable "x" {\n  description = <<EOT text\nbody\nEOT\n}\n'
}

describe('the documentation’s reading of HCL', () => {
  it('reads Terraform as HashiCorp’s parser does, for the constructs modules use', async () => {
    await expectSameReading('tricky.tf', TRICKY)
    await expectSameReading('pieces.tf', `${PIECES}${TRICKY}${PIECES}`)
  })

  it('reads the repository’s modules, the test modules and the benchmark’s as HashiCorp’s parser does', async () => {
    const tracked = execFileSync('git', ['ls-files', '*.tf'], { encoding: 'utf8' }).split('\n').filter(Boolean)
    expect(tracked.length).toBeGreaterThan(10)
    for (const path of tracked) await expectSameReading(path, await readFile(path, 'utf8'))
    const modules: Array<Record<string, string | Buffer>> = [NETWORK_MODULE, vpcModule(), vpcModule('5.8.1', 'cloudposse/label/null'), realisticModule(30, 0)]
    for (const files of modules) {
      for (const [path, text] of Object.entries(files)) if (path.endsWith('.tf')) await expectSameReading(path, String(text))
    }
    await expectSameReading('large.tf', largeTerraform(64 * 1024, 'l'))
  })

  it('declines every file HCL refuses', async () => {
    for (const [name, text] of Object.entries(REFUSED)) {
      await expect(hashicorpReading('refused.tf', text), name).rejects.toBeDefined()
      await expect(treeSitterReading(text), name).rejects.toThrow(Unsure)
      await expect(treeSitterReading(`${PIECES}${text}${PIECES}`, 1), `${name}, in pieces`).rejects.toThrow(Unsure)
    }
  })
})

describe('documenting through the parser’s worker', () => {
  const worker = new HclParser()
  afterAll(() => worker.close())

  it('gives the same documentation as HashiCorp’s parser, and HashiCorp’s error for a file HCL refuses', async () => {
    const files = new Map([
      ['main.tf', TRICKY],
      ['broken.tf', REFUSED['unterminated string']!],
      ['lenient.tf', REFUSED['two arguments on a line']!]
    ])
    const ours = await extractDocs(files, worker.document.bind(worker))
    const exact = await extractDocs(files, worker.parse.bind(worker))
    expect(ours).toEqual(exact)
    expect(ours.warnings).toEqual([
      expect.stringMatching(/^broken\.tf could not be parsed.*Invalid multi-line string/),
      expect.stringMatching(/^lenient\.tf could not be parsed.*Missing newline after argument/)
    ])
  })
})

describe('the parser’s readings kept', () => {
  it('are read once for a text met again, within a budget in bytes, the least recently read going first', async () => {
    const file = (i: number) => `variable "v${i}" {\n  description = "${'x'.repeat(1000)}"\n}\n`
    // Room for the readings of four of these texts (about 2 KB each, UTF-16), not five.
    const parser = new HclParser(20_000, 4 * 2 * file(0).length)
    try {
      const first = await parser.document('a.tf', file(0))
      expect(await parser.document('a.tf', file(0))).toBe(first)
      // The documentation's reading and HashiCorp's whole one are kept apart.
      expect(await parser.parse('a.tf', file(0))).not.toBe(first)
      const second = await parser.document('b.tf', file(1))
      await parser.document('c.tf', file(2))
      // Read again, the first is the most recent: another's reading goes to make room, not it.
      expect(await parser.document('a.tf', file(0))).toBe(first)
      await parser.document('d.tf', file(3))
      expect(await parser.document('a.tf', file(0))).toBe(first)
      expect(await parser.document('b.tf', file(1))).toBe(second)
      // Four others read after it: the second is gone, and read anew.
      for (const i of [4, 5, 6, 7]) await parser.document('e.tf', file(i))
      expect(await parser.document('b.tf', file(1))).not.toBe(second)
      expect(await parser.document('b.tf', file(1))).toEqual(second)
    } finally {
      await parser.close()
    }
  })
})
