/** How many lines a block shows open: up to 15 read at a glance; a longer one is folded to its first line. */
const FOLD_AT_LINES = 16

/**
 * Multi-line HCL (an input's object type, a default laid out) as it is written: monospace, line by
 * line, its common indentation removed. A long one is folded to its first line, a click (or Enter)
 * away from the rest, so a list of hundreds of inputs stays a list.
 */
export function FoldedCode({ label, text }: { label: string; text: string }) {
  const lines = dedent(text)
  if (lines.length === 1) return <code>{lines[0]}</code>
  // Focusable: a line longer than the box scrolls, by keyboard too.
  const block = (
    <pre className="keep-lines" tabIndex={0}>
      {lines.join('\n')}
    </pre>
  )
  return (
    <div role="group" aria-label={label} className="folded-code-group">
      {lines.length < FOLD_AT_LINES ? (
        block
      ) : (
        <details>
          <summary>
            <code>{lines[0]}</code> <span className="muted">… {lines.length} lines</span>
          </summary>
          {block}
        </details>
      )}
    </div>
  )
}

/** The lines of `text` without the indentation its lines after the first share (HCL keeps the block's own). */
function dedent(text: string): string[] {
  const lines = text.replace(/\s+$/, '').split('\n')
  const rest = lines.slice(1).filter((line) => line.trim() !== '')
  const indent = Math.min(...rest.map((line) => /^ */.exec(line)![0].length))
  return rest.length === 0 ? lines : [lines[0]!, ...lines.slice(1).map((line) => line.slice(Math.min(indent, /^ */.exec(line)![0].length)))]
}
