/**
 * A doc's frontmatter: the `---` block at its top, read line by line rather than as YAML. Real
 * provider docs break strict YAML parsers (random v3.9.0's CDKTF docs put an HTML comment inside
 * the block, and js-yaml and yaml@2 both throw), and the registry honours only a handful of plain
 * fields, so a tolerant reader of `key: value` and `key: |-` blocks is what OpenTofu's scraper
 * falls back to too (registry-ui `extractFrontmatterPermissively`).
 */
export interface Frontmatter {
  /** The fields found, by name; a block scalar's lines joined as YAML would (`|`: kept, `>`: folded). */
  fields: Map<string, string>
  /** The markdown after the block (all of it when there is no block). */
  body: string
}

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*)$/

export function readFrontmatter(markdown: string): Frontmatter {
  const text = markdown.replace(/^\uFEFF/, '')
  const lines = text.split(/\r?\n/)
  if (lines[0]?.trim() !== '---') return { fields: new Map(), body: text }
  const end = lines.findIndex((line, index) => index > 0 && /^(---|\.\.\.)\s*$/.test(line))
  if (end === -1) return { fields: new Map(), body: text }
  const fields = new Map<string, string>()
  for (let index = 1; index < end; index++) {
    const line = lines[index]!
    if (/^\s*(#|<!--)/.test(line) || line.trim() === '') continue
    const match = KEY.exec(line)
    if (!match || /^\s/.test(line)) continue
    const [, key, raw] = match as unknown as [string, string, string]
    const value = raw.trim()
    if (/^[|>][+-]?$/.test(value)) {
      const block: string[] = []
      while (index + 1 < end && (lines[index + 1]!.trim() === '' || /^\s/.test(lines[index + 1]!))) block.push(lines[++index]!)
      const indent = Math.min(...block.filter((entry) => entry.trim()).map((entry) => /^\s*/.exec(entry)![0].length))
      const unindented = block.map((entry) => entry.slice(Number.isFinite(indent) ? indent : 0)).join('\n').replace(/\s+$/, '')
      fields.set(key, value.startsWith('>') ? unindented.replace(/([^\n])\n(?=[^\n])/g, '$1 ') : unindented)
    } else fields.set(key, unquote(value))
  }
  return { fields, body: lines.slice(end + 1).join('\n') }
}

/** A scalar as YAML reads it: quotes taken off (with `''` and `\"` undone), or a comment cut off a plain one. */
function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) return value.slice(1, -1).replace(/\\(["\\])/g, '$1')
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'")
  return value.replace(/\s+#.*$/, '')
}
