/**
 * The `module` block a module page offers to copy: its source and version, and its required
 * inputs, each set to what the user typed or else to an empty value of its type with the type
 * beside it (terrareg's usage builder), laid out as `terraform fmt` lays it out.
 */

export interface UsageInput {
  name: string
  /** The type expression as written (`list(string)`, `object({…})`), or "" when none is given. */
  type: string
  /** What the user typed: a string input's text is quoted, any other is taken as an HCL expression. */
  value?: string
}

export interface ModuleSource {
  hostname: string
  namespace: string
  name: string
  provider: string
  version: string
  /** A submodule or example (`modules/subnet`), reached as `…//modules/subnet`; "" for the root. */
  part?: string
}

/** The block, with the required inputs in a group of their own. */
export function moduleBlock(source: ModuleSource, inputs: UsageInput[] = []): string {
  const { hostname, namespace, name, provider, version, part = '' } = source
  const label = (part ? part.split('/').pop()! : name).replace(/[^A-Za-z0-9_-]/g, '_')
  const head = aligned([
    ['source', `"${hostname}/${namespace}/${name}/${provider}${part ? `//${part}` : ''}"`],
    ['version', `"${version}"`]
  ])
  const body = inputs.length === 0 ? '' : `\n  # Required inputs\n${aligned(inputs.map((input): [string, string, string?] => [input.name, ...valueOf(input)]))}`
  return `module "${label}" {\n${head}${body}}\n`
}

/** A value and its comment: what the user typed, or the type's empty value with the type named. */
function valueOf(input: UsageInput): [string, string?] {
  const typed = input.value?.trim()
  const type = input.type.replace(/\s+/g, ' ').trim()
  if (typed) return [isStringType(type) && !isExpression(typed) ? hclString(typed) : typed]
  return [placeholder(type), type || 'any type']
}

/**
 * Attribute lines as `terraform fmt` lays them out: the `=` signs of consecutive attributes in one
 * column, and the comments of consecutive commented lines in another.
 */
function aligned(lines: Array<[string, string, string?]>): string {
  const width = Math.max(...lines.map(([name]) => name.length))
  const code = lines.map(([name, value]) => `  ${name.padEnd(width)} = ${value}`)
  const out: string[] = []
  for (let start = 0; start < lines.length; ) {
    let end = start
    while (end < lines.length && lines[end]![2] === undefined) out.push(`${code[end++]}\n`)
    start = end
    while (end < lines.length && lines[end]![2] !== undefined) end++
    const column = Math.max(0, ...code.slice(start, end).map((line) => line.length))
    for (let index = start; index < end; index++) out.push(`${code[index]!.padEnd(column)} # ${lines[index]![2]}\n`)
    start = end
  }
  return out.join('')
}

/** An empty value of a type: what makes the block read at a glance as "fill this in". */
function placeholder(type: string): string {
  const kind = /^(\w+)/.exec(type)?.[1]
  switch (kind) {
    case 'string':
      return '""'
    case 'number':
      return '0'
    case 'bool':
      return 'false'
    case 'list':
    case 'set':
    case 'tuple':
      return '[]'
    case 'map':
    case 'object':
      return '{}'
    default:
      return 'null'
  }
}

function isStringType(type: string): boolean {
  return type === 'string'
}

/** Text that is already an expression (quoted, a reference, a call) rather than a string's words. */
function isExpression(text: string): boolean {
  return /^"/.test(text) || /^(var|local|module|data|each|count|path|terraform)\./.test(text) || /^[a-z_]+\(/.test(text)
}

/** A quoted HCL string: quotes, backslashes, newlines and template introducers escaped. */
export function hclString(text: string): string {
  const escaped = text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(/\$\{/g, () => '$${')
    .replace(/%\{/g, '%%{')
  return `"${escaped}"`
}
