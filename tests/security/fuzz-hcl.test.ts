import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { hashicorpReading, treeSitterReading, Unsure } from '../helpers/hcl-readings.js'

/**
 * Generated Terraform, read both ways: whatever HashiCorp's parser reads, the documentation's
 * tree-sitter reading gives the same JSON or declines (Unsure, and HashiCorp's parser reads it);
 * whatever HashiCorp's parser refuses, the tree-sitter reading declines. The files are made of what
 * modules write, in the places they write it (templates, heredocs, objects over lines, comments,
 * numbers, keys of every kind), with some of what HCL refuses (breaks outside brackets, escapes it
 * does not know, a newline in a quoted string) mixed in.
 */

const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/)
const spaces = fc.constantFrom('', ' ', '  ')
const text = fc.stringMatching(/^[a-zA-Z0-9 .,:;!?()[\]/'_-]{0,12}$/)
const escape = fc.constantFrom('\\n', '\\t', '\\"', '\\\\', '\\u00e9', '\\U0001F600', '$${x}', '%%{y}', 'é', '😀', '“', '\\q', '\n')
const traversal = fc.tuple(fc.constantFrom('var', 'local', 'module', 'data.aws_x'), name, fc.constantFrom('', '[0]', '.id', '[*].id', '["k"]', '.0')).map(([root, field, tail]) => `${root}.${field}${tail}`)

interface Exprs {
  expression: string
  simple: string
  quoted: string
  heredoc: string
  tuple: string
  object: string
}

const exprs = fc.letrec<Exprs>((untyped) => {
  const tie = (key: keyof Exprs) => untyped(key) as fc.Arbitrary<string>
  return {
  simple: fc.oneof(
    fc.integer({ min: -1000, max: 1_000_000 }).map(String),
    fc.constantFrom('0.5', '1.25', '-2.5', '1.0e3', '1.5E-2', '007', '12345678901234567890', '0x10', 'true', 'false', 'null', '!true', '-var.x', '-"1"'),
    traversal,
    fc.tuple(fc.constantFrom('max', 'lookup', 'jsonencode', 'provider::aws::arn_parse'), fc.array(tie('simple'), { maxLength: 2 })).map(([fn, args]) => `${fn}(${args.join(', ')})`),
    fc.tuple(traversal, tie('simple'), tie('simple')).map(([c, a, b]) => `${c} ? ${a} : ${b}`),
    fc.tuple(tie('simple'), fc.constantFrom('+', '*', '==', '&&'), traversal).map(([a, op, b]) => `${a} ${op} ${b}`),
    (tie('simple')).map((inner) => `(${inner})`),
    traversal.map((coll) => `[for v in ${coll} : v]`),
    tie('quoted')
  ),
  quoted: fc
    .array(
      fc.oneof(
        { weight: 4, arbitrary: text },
        { weight: 2, arbitrary: escape },
        { weight: 2, arbitrary: fc.tuple(fc.constantFrom('${', '${~', '${ '), traversal, fc.constantFrom('}', '~}', ' }')).map(([open, inner, close]) => `${open}${inner}${close}`) },
        { weight: 1, arbitrary: fc.constantFrom('${true}', '${1.5}', '${"in"}', '${var.a ? "y" : var.b}', '%{ if var.a }yes%{ else }no%{ endif }', '%{~ for k, v in var.m ~}${k}=${v}%{ endfor }', '%{if true}x%{endif}') }
      ),
      { maxLength: 5 }
    )
    .map((parts) => `"${parts.join('')}"`),
  heredoc: fc
    .tuple(
      fc.constantFrom('<<', '<<-'),
      fc.constantFrom('EOT', 'EOF', 'JSON'),
      fc.array(fc.tuple(fc.constantFrom('', '  ', '    ', '\t', '      '), fc.oneof(text, fc.constantFrom('${var.x} start', 'mid ${var.y}', '$${kept}', '%{ if true }a%{ endif }', '\\n stays', ''))), { maxLength: 5 }),
      fc.constantFrom('', '  ', '    ')
    )
    .map(([marker, id, lines, indent]) => `${marker}${id}\n${lines.map(([lead, line]) => `${lead}${line}\n`).join('')}${indent}${id}`),
  tuple: fc.tuple(fc.array(tie('expression'), { maxLength: 3 }), fc.constantFrom(', ', ',\n  ', ',')).map(([items, sep]) => `[${items.join(sep)}]`),
  object: fc
    .tuple(
      fc.array(
        fc.tuple(
          fc.oneof(name, fc.constantFrom('"quoted key"', '"${x}"', '10', '2', 'true', '(var.k)', 'a.b', '"Ä"', '"Z"')),
          fc.constantFrom(' = ', ' : ', '='),
          tie('expression'),
          fc.constantFrom('', ' # note', ' // note', ' /* note */')
        ),
        { maxLength: 4 }
      ),
      fc.constantFrom('\n', ', ', ',\n')
    )
    .map(([items, sep]) => (items.length === 0 ? '{}' : `{\n${items.map(([key, eq, value, comment]) => `  ${key}${eq}${value}${sep.includes('\n') ? comment : ''}`).join(sep)}\n}`)),
  expression: fc.oneof({ depthSize: 'small' }, tie('simple'), tie('heredoc'), tie('tuple'), tie('object'))
  }
})

const typeExpression = fc.constantFrom('string', 'number', 'any', 'list(string)', 'map(object({ name = string, size = optional(number, 3) }))', 'object({\n    name = string # why\n    tags = optional(map(string), {})\n  })', 'set(string)')

/** An argument, sometimes broken where HCL refuses a break. */
const argument = (key: string, value: fc.Arbitrary<string>) =>
  fc.tuple(value, spaces, fc.constantFrom('\n', '\n', '\n', '\n', ' # trailing\n', ' ')).map(([v, pad, end]) => `  ${key}${pad} = ${v}${end}`)

const block = fc.oneof(
  fc
    .tuple(name, fc.option(argument('type', typeExpression)), fc.option(argument('description', fc.oneof(exprs.quoted, exprs.heredoc))), fc.option(argument('default', exprs.expression)), fc.option(argument('sensitive', fc.constantFrom('true', 'false'))))
    .map(([label, ...args]) => `variable "${label}" {\n${args.filter(Boolean).join('')}}\n`),
  fc.tuple(name, fc.option(argument('description', exprs.quoted)), argument('value', exprs.simple)).map(([label, ...args]) => `output "${label}" {\n${args.filter(Boolean).join('')}}\n`),
  fc.tuple(name, name, fc.option(argument('provider', fc.constantFrom('aws.west', 'aws'))), argument('tags', exprs.object)).map(([type, label, ...args]) => `resource "aws_${type}" "${label}" {\n${args.filter(Boolean).join('')}  lifecycle {\n    create_before_destroy = true\n  }\n}\n`),
  fc.tuple(name, exprs.quoted).map(([local, version]) => `terraform {\n  required_version = ">= 1.5"\n  required_providers {\n    ${local} = {\n      source  = "hashicorp/${local}"\n      version = ${version}\n    }\n  }\n}\n`),
  fc.tuple(name, exprs.quoted).map(([label, source]) => `module "${label}" {\n  source  = ${source}\n  version = "~> 1.0"\n}\n`),
  fc.tuple(name, exprs.expression).map(([label, value]) => `locals {\n  ${label} = ${value}\n}\n`)
)

const file = fc.array(block, { minLength: 1, maxLength: 4 }).map((blocks) => blocks.join('\n'))

describe('the documentation’s reading of generated Terraform', () => {
  it('is HashiCorp’s reading whenever it reads a file, and declines every file HCL refuses', async () => {
    let read = 0
    let readable = 0
    await fc.assert(
      fc.asyncProperty(file, async (source) => {
        const exact = await hashicorpReading('fuzz.tf', source).catch(() => undefined)
        const declined = (error: unknown) => {
          if (error instanceof Unsure) return undefined
          throw error
        }
        const ours = await treeSitterReading(source).catch(declined)
        // Cut after every top-level block: the same reading, or the same refusal.
        const inPieces = await treeSitterReading(source, 1).catch(declined)
        expect(JSON.stringify(inPieces)).toBe(JSON.stringify(ours))
        if (exact === undefined) {
          expect(ours, 'HCL refuses this file, and the tree-sitter reading must decline it').toBeUndefined()
          return
        }
        readable++
        if (ours === undefined) return
        read++
        expect(JSON.stringify(ours)).toBe(JSON.stringify(exact))
      }),
      { numRuns: 400 }
    )
    // Declining is always safe (HashiCorp's parser reads the file); it must not be the rule.
    expect(read).toBeGreaterThan(readable / 2)
  })
})
