import type { Node, Tree, TreeCursor } from 'web-tree-sitter'
import { DOCUMENTED_BLOCKS, type DocumentedBlock } from './terraform-docs.js'

/**
 * What documentation reads of one configuration file, from tree-sitter's syntax tree, in the shape
 * hcl2json gives the whole file: blocks nested by their labels, each body in an array, keys sorted as
 * Go sorts them, literals as JSON values, templates as hcl2json renders them and any other
 * expression as `${…}` around its source. Only the blocks and attributes in DOCUMENTED_BLOCKS are
 * read, so a module's resource bodies and locals cost nothing past the parse.
 *
 * tree-sitter's grammar is more forgiving than HCL's own parser: it reads what HCL refuses (two
 * arguments on a line, an expression broken across lines, a newline in a quoted string, a bad
 * escape), and has no words for HCL's errors. Whatever this reader is not sure to read exactly as
 * HCL does, it declines with `Unsure`, and the file goes to HashiCorp's parser, which gives its
 * result or its error (hcl-parser.ts).
 */
export class Unsure extends Error {}

type Value = null | boolean | number | string | Value[] | { [key: string]: Value }
type Json = Record<string, Value>

/** Parses a text with tree-sitter's HCL grammar. */
export type TreeSitterParse = (text: string) => Tree | null

/**
 * A file is parsed in pieces of about this many characters, cut where a line holding only `}` ends a
 * top-level block: tree-sitter's tree takes about a hundred bytes of WebAssembly memory per byte of
 * Terraform (87 MB for a 900 KB file), and that memory, once grown, stays with the worker.
 */
export const PIECE_CHARS = 128 * 1024
/** Cuts that fell inside a construct (a heredoc holding JSON, say) before the rest is parsed whole. */
const MISPLACED_CUTS = 3

/**
 * The documented parts of a file, or Unsure. A cut between two top-level items leaves two pieces
 * that each parse as they do in the whole file; a cut anywhere else leaves the first piece with
 * something open (a block, a heredoc, a comment, brackets), which is a syntax error, and the piece
 * is then read on to the next cut. A body's items are independent in HCL but for its arguments'
 * names, which are checked across the pieces.
 */
export function documentedConfig(parse: TreeSitterParse, source: string, pieceChars = PIECE_CHARS): Json {
  const out = new Map<string, unknown>()
  const topNames = new Set<string>()
  let misplaced = 0
  for (let from = 0; from < source.length; ) {
    let to = misplaced < MISPLACED_CUTS ? cutAfter(source, from + pieceChars) : source.length
    for (;;) {
      const piece = source.slice(from, to)
      const tree = parse(piece)
      if (!tree) throw new Unsure('tree-sitter gave no tree')
      try {
        if (!tree.rootNode.hasError || to === source.length) {
          readPiece(tree.rootNode, piece, out, topNames)
          break
        }
      } finally {
        tree.delete()
      }
      misplaced++
      to = misplaced < MISPLACED_CUTS ? cutAfter(source, to + 1) : source.length
    }
    from = to
  }
  return sortedObject(out) as Json
}

/** Where the first line holding only `}` at or after `at` ends, or the end of the text. */
function cutAfter(source: string, at: number): number {
  for (let i = source.indexOf('\n}', at - 1); i !== -1; i = source.indexOf('\n}', i + 1)) {
    const end = /^[ \t]*\r?\n/.exec(source.slice(i + 2, i + 8))
    if (end) return i + 2 + end[0].length
  }
  return source.length
}

/** One piece of a file into `out`; `topNames` are the top-level arguments of the pieces before it. */
function readPiece(root: Node, source: string, out: Map<string, unknown>, topNames: Set<string>): void {
  if (root.hasError) throw new Unsure('the file has a syntax error')
  const top = root.namedChildren.filter((child) => child.type !== 'comment')
  if (top.length === 0) return
  const body = top[0]!
  if (top.length > 1 || body.type !== 'body') throw new Unsure('the file is not a body')
  refuseLexicalDifferences(root, source)
  const reader = new Reader(source)
  const cursor = body.walk()
  try {
    reader.checkBody(cursor, topNames)
  } finally {
    cursor.delete()
  }
  // Every getter of a node calls into WebAssembly, and each node it gives is a new object: the reader
  // asks for the one child it needs (firstChild, lastChild), or for all at once (children, kept).
  for (const child of body.children) {
    const type = child.type
    if (type !== 'block' && type !== 'attribute') continue
    const name = child.firstChild!.text
    if (!Object.hasOwn(DOCUMENTED_BLOCKS, name)) continue
    // A top-level argument named as a block kind would be read as one by the documentation.
    if (type === 'block') reader.block(child.children, out, DOCUMENTED_BLOCKS[name]!)
    else out.set(name, reader.expression(child.lastChild!))
  }
}

/**
 * Words the grammar takes and HCL's scanner does not: hexadecimal numbers, and `::` in a name other
 * than a provider function's. Each place the text has one is looked up in the tree, so that the same
 * characters in a string or a comment (an ARN's `::`) do not count.
 */
function refuseLexicalDifferences(root: Node, source: string): void {
  for (const match of source.matchAll(/0x|::/g)) {
    const node = root.descendantForIndex(match.index)!
    const type = node.type
    if (match[0] === '0x' ? type === 'numeric_lit' : type === 'identifier' && node.parent?.type !== 'function_call') throw new Unsure(`${match[0]} where HCL refuses it`)
  }
}

type Token =
  | { kind: 'literal'; value: string }
  | { kind: 'interpolation'; node: Node }
  | { kind: 'if'; condition: Node }
  | { kind: 'else' }
  | { kind: 'endif' }
  | { kind: 'for'; key: string; value: string; collection: Node }
  | { kind: 'endfor' }

type Part = { kind: 'literal'; value: string } | { kind: 'expression'; node: Node } | { kind: 'if'; condition: Node; then: Part[]; else: Part[] } | { kind: 'for'; key: string; value: string; collection: Node; body: Part[] }

/** Backslash escapes; `$${` and `%%{` stay as written in hcl2json's reading, as in HCL's own literal tokens. */
const QUOTED_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))/gs
const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' }
/** Nodes inside which HCL ignores newlines: brackets, braces, parentheses and templates. */
const ENCLOSED = new Set(['collection_value', 'tuple', 'object', 'function_call', 'for_expr', 'template_expr', 'string_lit', 'new_index', 'literal_value'])

class Reader {
  constructor(private readonly source: string) {}

  /** One block into `out`, nested by its labels as hcl2json nests them. */
  block(children: Node[], out: Map<string, unknown>, documented: DocumentedBlock): void {
    let key = children[0]!.text
    let level = out
    let i = 1
    for (let type = children[i]!.type; type === 'string_lit' || type === 'identifier'; type = children[++i]!.type) {
      let next = level.get(key)
      if (next === undefined) level.set(key, (next = new Map<string, unknown>()))
      if (!(next instanceof Map)) throw new Unsure('a block label where a block was')
      level = next as Map<string, unknown>
      key = type === 'identifier' ? children[i]!.text : this.label(children[i]!)
    }
    const body = children[i + 1]!.type === 'body' ? children[i + 1]! : undefined
    const value = new Map<string, unknown>()
    for (const child of body?.children ?? []) {
      const type = child.type
      if (type !== 'block' && type !== 'attribute') continue
      const name = child.firstChild!.text
      if (type === 'attribute' && (documented.attributes === 'all' || documented.attributes.includes(name))) value.set(name, this.expression(child.lastChild!))
      else if (type === 'block' && documented.blocks.includes(name)) this.block(child.children, value, EVERY_ATTRIBUTE)
    }
    const current = level.get(key)
    if (current === undefined) level.set(key, [value])
    else if (Array.isArray(current)) current.push(value)
    else throw new Unsure('a block where a block label was')
  }

  private label(node: Node): string {
    const parts = this.template(node)
    if (parts.length !== 1 || parts[0]!.kind !== 'literal') throw new Unsure('a block label that is not a plain string')
    return parts[0]!.value
  }

  /** An expression as hcl2json's convertExpression gives it. */
  expression(node: Node): Value {
    if (node.childCount === 1) {
      const only = node.firstChild!
      switch (only.type) {
        case 'literal_value':
          return this.literal(only)
        case 'template_expr':
          return this.templateValue(only.firstChild!)
        case 'collection_value':
          return this.collection(only.firstChild!)
        case 'operation': {
          const operation = only.firstChild!
          if (operation.type === 'unary_operation') return this.unary(operation, node)
        }
      }
    }
    return this.wrapped(node)
  }

  private literal(node: Node): Value {
    const value = node.firstChild!
    switch (value.type) {
      case 'numeric_lit':
        return this.number(value)
      case 'bool_lit':
        return value.text === 'true'
      case 'null_lit':
        return null
      default:
        return this.templateValue(value)
    }
  }

  private number(node: Node): number {
    // HCL's numbers are decimal; the grammar also takes 0x…, which HCL refuses.
    if (!/^[0-9]+(\.[0-9]+([eE][-+]?[0-9]+)?)?$/.test(node.text)) throw new Unsure('a number HCL may not read')
    return Number(node.text)
  }

  /**
   * A number as cty writes it in a string (big.Float's Text('f', -1), at 512 bits): an integer's digits
   * without leading zeros, any other number as JavaScript writes it where that is the same.
   */
  private numberText(node: Node): string {
    const text = node.text
    if (/^[0-9]+$/.test(text)) return BigInt(text).toString()
    const value = this.number(node)
    const written = String(value)
    const significant = text.replace(/[eE].*$/, '').replace('.', '').replace(/^0+/, '').length
    if (!Number.isFinite(value) || /e/i.test(written) || significant > 15) throw new Unsure('a number cty would write otherwise')
    return written
  }

  /** `-1`, `!true`: hcl2json evaluates an operator on a literal, and wraps any other. */
  private unary(node: Node, expression: Node): Value {
    const [operator, operand, ...rest] = node.children
    if (rest.length > 0 || operand!.type !== 'literal_value') return this.wrapped(expression)
    const literal = operand!.children[0]!
    const operatorType = operator!.type
    const literalType = literal.type
    if (operatorType === '-' && literalType === 'numeric_lit') return -this.number(literal)
    if (operatorType === '!' && literalType === 'bool_lit') return literal.text !== 'true'
    if (literalType === 'string_lit') return this.wrapped(expression)
    throw new Unsure('an operator on a literal of the wrong type')
  }

  private collection(node: Node): Value {
    const children = node.children
    if (node.type === 'tuple') return children.filter((child) => child.type === 'expression').map((child) => this.expression(child))
    const entries = new Map<string, Value>()
    // HCL separates elements on one line with commas; the grammar takes them without.
    let separated = true
    let lastRow = -1
    for (const element of children) {
      const type = element.type
      if (type === ',') separated = true
      if (type !== 'object_elem') continue
      if (!separated && element.startPosition.row === lastRow) throw new Unsure('object elements on a line without a comma')
      separated = false
      lastRow = element.endPosition.row
      // key, `=` or `:`, value
      const [key, , value] = element.children
      entries.set(this.key(key!), this.expression(value!))
    }
    return sortedObject(entries) as Value
  }

  /** An object's key, as hcl2json's convertKey: a bare name as written, anything else as a string part. */
  private key(node: Node): string {
    if (node.children.every((child, i) => (i === 0 ? child.type === 'variable_expr' : child.type === 'get_attr'))) return this.rangeSource(node)
    return this.stringPart({ kind: 'expression', node })
  }

  private wrapped(node: Node): string {
    return `\${${this.rangeSource(node)}}`
  }

  /** hcl2json's rangeSource, down to its quirk: a `)` right after an expression is taken into it. */
  private rangeSource(node: Node): string {
    const end = this.source[node.endIndex] === ')' ? node.endIndex + 1 : node.endIndex
    return this.source.slice(node.startIndex, end)
  }

  /** A quoted or heredoc template's value: a string, or, for `"${x}"` alone, x's value. */
  private templateValue(node: Node): Value {
    const parts = this.template(node)
    if (parts.length === 1 && parts[0]!.kind === 'expression') return this.expression(parts[0]!.node)
    return parts.map((part) => this.stringPart(part)).join('')
  }

  /** hcl2json's convertStringPart. */
  private stringPart(part: Part): string {
    switch (part.kind) {
      case 'literal':
        return part.value
      case 'if': {
        const otherwise = part.else.map((p) => this.stringPart(p)).join('')
        return `%{if ${this.rangeSource(part.condition)}}${part.then.map((p) => this.stringPart(p)).join('')}${otherwise ? `%{else}${otherwise}` : ''}%{endif}`
      }
      case 'for':
        return `%{for ${part.key ? `${part.key}, ` : ''}${part.value} in ${this.rangeSource(part.collection)}}${part.body.map((p) => this.stringPart(p)).join('')}%{endfor}`
      case 'expression': {
        const node = part.node
        const only = node.childCount === 1 ? node.firstChild! : undefined
        const type = only?.type
        if (type === 'literal_value') {
          const literal = only!.firstChild!
          if (literal.type === 'numeric_lit') return this.numberText(literal)
          const value = this.literal(only!)
          if (typeof value === 'string' || typeof value === 'boolean') return String(value)
          throw new Unsure('null in a template')
        }
        if (type === 'template_expr') {
          const template = only!.children[0]!
          const parts = this.template(template)
          if (parts.length === 1 && parts[0]!.kind === 'expression') return this.stringPart(parts[0]!)
          return parts.map((p) => this.stringPart(p)).join('')
        }
        if (type === 'conditional') {
          const [condition, , yes, , no] = only!.children
          return this.stringPart({ kind: 'if', condition: condition!, then: [{ kind: 'expression', node: yes! }], else: [{ kind: 'expression', node: no! }] })
        }
        return this.wrapped(node)
      }
    }
  }

  /**
   * A template's parts as HCL's parser makes them: its tokens (literals unescaped, heredoc lines one
   * token each), strip markers applied, a flush heredoc's indentation removed, literals melded, then
   * directives nested.
   */
  private template(node: Node): Part[] {
    const heredoc = node.type === 'heredoc_template'
    const tokens: Token[] = []
    let trimNext = false
    const addLiteral = (from: number, to: number) => {
      if (to <= from) return
      const raw = this.source.slice(from, to)
      if (!heredoc && /[\n\r]/.test(raw)) throw new Unsure('a newline in a quoted string')
      const lines = heredoc ? raw.split(/(?<=\n)/) : [raw]
      for (const line of lines) {
        let value = heredoc ? line : unescapeQuoted(line)
        if (trimNext) value = value.replace(/^\s+/u, '')
        trimNext = false
        tokens.push({ kind: 'literal', value })
      }
    }
    const stripBefore = () => {
      const last = tokens[tokens.length - 1]
      if (last?.kind === 'literal') last.value = last.value.replace(/\s+$/u, '')
    }
    const children = node.children
    let from: number
    let to: number
    let inner: Node[]
    if (heredoc) {
      const open = children[1]
      const close = children[children.length - 1]!
      from = this.source.indexOf('\n', open!.endIndex) + 1
      if (this.source.slice(open!.endIndex, from).trim() !== '') throw new Unsure('text after a heredoc’s marker')
      to = this.source.lastIndexOf('\n', close.startIndex - 1) + 1
      if (from <= 0 || to < from || this.source.slice(to, close.startIndex).trim() !== '') throw new Unsure('a heredoc HCL may read otherwise')
      inner = children.slice(2, -1)
    } else {
      from = children[0]!.endIndex
      to = children[children.length - 1]!.startIndex
      inner = children.slice(1, -1)
    }
    let at = from
    const sequence = (items: Node[]) => {
      for (const item of items) {
        const type = item.type
        if (type === 'template_literal') continue
        addLiteral(at, item.startIndex)
        at = item.endIndex
        if (type === 'template_interpolation') {
          const [, ...rest] = item.children
          const strips = rest.filter((child) => child.type === 'strip_marker')
          const expression = rest.find((child) => child.type === 'expression')
          if (!expression) throw new Unsure('an empty interpolation')
          if (strips.some((strip) => strip.startIndex < expression.startIndex)) stripBefore()
          tokens.push({ kind: 'interpolation', node: expression })
          trimNext = strips.some((strip) => strip.startIndex > expression.startIndex)
        } else if (type === 'template_directive') {
          const directive = item.children[0]!
          for (const child of directive.children) {
            if (child.type === 'template_literal') continue
            if (child.type === 'template_interpolation' || child.type === 'template_directive') {
              sequence([child])
              continue
            }
            // An intro or end marker: %{if c}, %{else}, %{endif}, %{for k, v in c}, %{endfor}.
            addLiteral(at, child.startIndex)
            at = child.endIndex
            const marks = child.children
            const strips = marks.filter((mark) => mark.type === 'strip_marker')
            const keyword = marks.find((mark) => ['if', 'else', 'endif', 'for', 'endfor'].includes(mark.type))
            if (!keyword) throw new Unsure('a directive without its keyword')
            if (strips.some((strip) => strip.startIndex < keyword.startIndex)) stripBefore()
            const expressions = marks.filter((mark) => mark.type === 'expression')
            if (keyword.type === 'if') tokens.push({ kind: 'if', condition: expressions[0]! })
            else if (keyword.type === 'for') {
              const names = marks.filter((mark) => mark.type === 'identifier').map((name) => name.text)
              tokens.push({ kind: 'for', key: names.length === 2 ? names[0]! : '', value: names[names.length - 1]!, collection: expressions[0]! })
            } else tokens.push({ kind: keyword.type as 'else' | 'endif' | 'endfor' })
            trimNext = strips.some((strip) => strip.startIndex > keyword.startIndex)
          }
        } else throw new Unsure(`a template part of kind ${type}`)
      }
    }
    sequence(inner)
    addLiteral(at, to)
    if (heredoc && children[0]!.text === '<<-') flush(tokens)
    const melded: Token[] = []
    for (const token of tokens) {
      const last = melded[melded.length - 1]
      if (token.kind === 'literal' && last?.kind === 'literal') last.value += token.value
      else melded.push(token.kind === 'literal' ? { ...token } : token)
    }
    if (melded.length === 0) melded.push({ kind: 'literal', value: '' })
    const [parts, rest] = nest(melded, 0)
    if (rest !== melded.length) throw new Unsure('a directive out of place')
    return parts
  }

  /**
   * HCL's line rules, which tree-sitter's grammar does not keep: each argument and block ends its
   * line, an argument's expression starts on its line and spans lines only inside brackets, a block's
   * brace is on its line, a one-line block holds at most one argument, no argument is given twice, and
   * no quoted string spans lines. The whole file is checked, not only what is documented, as HCL
   * refuses the whole file for any of these. Only what spans lines is walked into (a string that
   * spans lines is inside nodes that all do), with a cursor, which makes no node objects.
   */
  checkBody(cursor: TreeCursor, names = new Set<string>()): void {
    if (!cursor.gotoFirstChild()) return
    do {
      const type = cursor.nodeType
      if (type === 'comment') continue
      if (type === 'attribute') this.checkArgument(cursor, names)
      else if (type === 'block') this.checkBlock(cursor)
      else throw new Unsure(`a body item of kind ${type}`)
    } while (cursor.gotoNextSibling())
    cursor.gotoParent()
  }

  /** The cursor is on an argument; `names` are the arguments of its body so far. */
  private checkArgument(cursor: TreeCursor, names: Set<string> | undefined): void {
    const row = cursor.startPosition.row
    const end = cursor.endIndex
    const spans = cursor.endPosition.row !== row
    cursor.gotoFirstChild()
    const name = this.source.slice(cursor.startIndex, cursor.endIndex)
    if (names?.has(name)) throw new Unsure(`the argument ${name} is given twice`)
    names?.add(name)
    while (cursor.nodeType !== 'expression' && cursor.gotoNextSibling());
    if (cursor.startPosition.row !== row) throw new Unsure('an argument whose expression is on the next line')
    if (spans) this.checkExpressionLines(cursor, row)
    cursor.gotoParent()
    if (names) this.endsLine(end)
  }

  /** The cursor is on a block. */
  private checkBlock(cursor: TreeCursor): void {
    const row = cursor.startPosition.row
    const lastRow = cursor.endPosition.row
    const end = cursor.endIndex
    cursor.gotoFirstChild()
    while (cursor.nodeType !== 'block_start') {
      if (cursor.startPosition.row !== cursor.endPosition.row) throw new Unsure('a block label that spans lines')
      cursor.gotoNextSibling()
    }
    if (cursor.startPosition.row !== row) throw new Unsure('a block whose brace is not on its line')
    const oneLine = lastRow === row
    const braceEnd = cursor.endIndex
    const hasBody = cursor.gotoNextSibling() && (cursor.nodeType as string) === 'body'
    if (hasBody) {
      if (oneLine) this.checkOneLineBody(cursor)
      else {
        this.endsLine(braceEnd)
        this.checkBody(cursor)
      }
    } else if (!oneLine) this.endsLine(braceEnd)
    cursor.gotoParent()
    this.endsLine(end)
  }

  /** A one-line block's body: a single argument. The cursor is on the body. */
  private checkOneLineBody(cursor: TreeCursor): void {
    cursor.gotoFirstChild()
    const type = cursor.nodeType
    const more = cursor.gotoNextSibling()
    if (type !== 'attribute' || more) throw new Unsure('a one-line block with more than an argument')
    this.checkArgument(cursor, undefined)
    cursor.gotoParent()
  }

  /** Only spaces and a comment may follow on the line. */
  private endsLine(index: number): void {
    if (!/^[ \t]*(?:(?:#|\/\/)[^\n]*|\/\*[^\n]*?\*\/[ \t]*)?(?:\r?\n|$)/.test(this.source.slice(index, index + 512))) throw new Unsure('something else on the line after an argument or block')
  }

  /** The cursor is on an expression that spans lines: outside brackets, parentheses and templates, its parts stay on one line. */
  private checkExpressionLines(cursor: TreeCursor, row: number): void {
    let at = row
    const walk = (): boolean => {
      if (!cursor.gotoFirstChild()) return false
      do {
        const type = cursor.nodeType
        if (type === 'comment') throw new Unsure('a comment inside an expression')
        if (cursor.startPosition.row !== at) throw new Unsure('an expression broken across lines')
        const last = cursor.endPosition.row
        if (ENCLOSED.has(type) || (type === 'expression' && this.parenthesized(cursor))) {
          if (last !== at) this.quotedStringsOnOneLine(cursor)
          at = last
        } else if (!walk()) at = last
      } while (cursor.gotoNextSibling())
      cursor.gotoParent()
      return true
    }
    walk()
  }

  private parenthesized(cursor: TreeCursor): boolean {
    if (!cursor.gotoFirstChild()) return false
    const type = cursor.nodeType
    cursor.gotoParent()
    return type === '('
  }

  /** The cursor is on a node that spans lines: no quoted string within it does. */
  private quotedStringsOnOneLine(cursor: TreeCursor): void {
    const quote = this.source.indexOf('"', cursor.startIndex)
    if (quote === -1 || quote >= cursor.endIndex) return
    const type = cursor.nodeType
    if (type === 'quoted_template' || type === 'string_lit') throw new Unsure('a newline in a quoted string')
    if (!cursor.gotoFirstChild()) return
    do {
      if (cursor.startPosition.row !== cursor.endPosition.row) this.quotedStringsOnOneLine(cursor)
    } while (cursor.gotoNextSibling())
    cursor.gotoParent()
  }

}

/** A map as a JSON object with its keys in Go's order (json.Marshal sorts them, byte-wise). */
function sortedObject(map: Map<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const plain = (value: unknown): unknown => (value instanceof Map ? sortedObject(value as Map<string, unknown>) : value)
  const keys = [...map.keys()]
  if (keys.length > 1) keys.sort(keys.some((key) => PAST_SURROGATES.test(key)) ? byUtf8 : undefined)
  for (const key of keys) {
    const value = map.get(key)
    out[key] = Array.isArray(value) ? value.map(plain) : plain(value)
  }
  return out
}

/** Go compares strings by their UTF-8 bytes; JavaScript's UTF-16 order is the same but for these. */
const PAST_SURROGATES = /[\ud800-\uffff]/

function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b))
}

/** A block documentation reads whole (`required_providers`). */
const EVERY_ATTRIBUTE: DocumentedBlock = { attributes: 'all', blocks: [] }

function unescapeQuoted(raw: string): string {
  return raw.replace(QUOTED_ESCAPE, (_match, u4?: string, u8?: string, simple?: string) => {
    if (u4 ?? u8) return String.fromCodePoint(parseInt((u4 ?? u8)!, 16))
    const replaced = SIMPLE_ESCAPES[simple!]
    if (replaced === undefined) throw new Unsure('an escape HCL refuses')
    return replaced
  })
}

/** HCL's flush heredoc rule (`<<-`): the fewest leading spaces of any line that begins with text are removed from each such line. */
function flush(tokens: Token[]): void {
  let fewest = Number.POSITIVE_INFINITY
  let lineStart = true
  const adjust: Array<{ kind: 'literal'; value: string }> = []
  for (const token of tokens) {
    if (lineStart) {
      lineStart = false
      let spaces = 0
      if (token.kind === 'literal') {
        const trimmed = token.value.replace(/^\s+/u, '')
        if (trimmed === '' && token.value.endsWith('\n')) spaces = Number.POSITIVE_INFINITY
        else {
          const prefix = token.value.slice(0, token.value.length - trimmed.length)
          if (/[^ \t]/.test(prefix)) throw new Unsure('a heredoc line indented with other spaces')
          spaces = prefix.length
          adjust.push(token)
        }
      }
      fewest = Math.min(fewest, spaces)
    }
    if (token.kind === 'literal' && token.value.endsWith('\n')) lineStart = true
  }
  if (!Number.isFinite(fewest)) return
  for (const token of adjust) token.value = token.value.slice(fewest)
}

/** Nests `%{if}` and `%{for}` over the parts they hold, as HCL's template parser does. */
function nest(tokens: Token[], from: number, until?: ReadonlyArray<Token['kind']>): [Part[], number] {
  const parts: Part[] = []
  let i = from
  while (i < tokens.length) {
    const token = tokens[i]!
    if (until?.includes(token.kind)) return [parts, i]
    i++
    switch (token.kind) {
      case 'literal':
        parts.push(token)
        break
      case 'interpolation':
        parts.push({ kind: 'expression', node: token.node })
        break
      case 'if': {
        const [then, atElse] = nest(tokens, i, ['else', 'endif'])
        let otherwise: Part[] = []
        i = atElse
        if (tokens[i]?.kind === 'else') [otherwise, i] = nest(tokens, i + 1, ['endif'])
        if (tokens[i]?.kind !== 'endif') throw new Unsure('an if without its endif')
        i++
        parts.push({ kind: 'if', condition: token.condition, then, else: otherwise })
        break
      }
      case 'for': {
        const [body, atEnd] = nest(tokens, i, ['endfor'])
        if (tokens[atEnd]?.kind !== 'endfor') throw new Unsure('a for without its endfor')
        i = atEnd + 1
        parts.push({ kind: 'for', key: token.key, value: token.value, collection: token.collection, body })
        break
      }
      default:
        throw new Unsure(`a stray ${token.kind}`)
    }
  }
  if (until) throw new Unsure('a directive left open')
  return [parts, i]
}
