import { useEffect, useMemo, useState } from 'react'
import { flushSync } from 'react-dom'
import DOMPurify from 'dompurify'
import { Marked, type Token } from 'marked'
import markedAlert from 'marked-alert'
import Prism from 'prismjs'
import 'prismjs/components/prism-hcl'

/** GitHub's Markdown: tables and the rest of GFM, and its alerts (`> [!WARNING]`) as alerts. */
const parser = new Marked({ async: false, gfm: true }).use(markedAlert())

/** Heading ids are prefixed, so a README cannot clobber the page's own ids or globals (DOM clobbering). */
const ID_PREFIX = 'readme-'

/**
 * A document without contents longer than this (a changelog: terraform-aws-vpc's is 30,000 px) is drawn
 * a piece at a time: the first, about a screen of it, at once, and one more piece each frame after.
 * Sanitizing 130 KB of Markdown whole took 150 ms, and its layout 70 ms more, before anything showed.
 */
const LONG = 32 * 1024
/** About how much Markdown the first piece holds, and each after it. */
const FIRST_PIECE = 4 * 1024
const PIECE = 16 * 1024

/**
 * A README, rendered. Markdown may carry HTML, so the result goes through DOMPurify: no script,
 * no event handler, no iframe or form from a README ever reaches the page (and the page's CSP
 * would refuse them anyway). Links to other sites open outside the app; images are not loaded, but
 * named. Links inside the README (`#input_azs`, as terraform-docs writes them) scroll to their
 * target without touching the app's route, and links relative to the README (`../simple`) go to that
 * part of the module through `onLocalLink` when it has one, and nowhere else.
 */
export function Markdown({
  source,
  basePath = '',
  onLocalLink,
  contents = false
}: {
  source: string
  basePath?: string
  onLocalLink?: (path: string) => boolean
  /** A table of contents of its sections (second- and third-level headings) first, when it has three or more. */
  contents?: boolean
}) {
  const rendered = useMemo(() => new MarkdownDocument(source, contents ? Infinity : LONG), [source, contents])
  // How many pieces are drawn, of which document: another document starts again from its first.
  const [progress, setProgress] = useState({ of: rendered, drawn: 1 })
  const drawn = progress.of === rendered ? Math.min(progress.drawn, rendered.pieces) : 1
  useEffect(() => {
    if (drawn >= rendered.pieces) return
    const next = requestAnimationFrame(() => setProgress({ of: rendered, drawn: drawn + 1 }))
    return () => cancelAnimationFrame(next)
  }, [rendered, drawn])
  const headings = contents ? rendered.headings() : []
  return (
    <>
      {contents && headings.length >= 3 && <Contents headings={headings} />}
      <div
        className="markdown"
        // Said to assistive technology while the pieces are being drawn, a frame apart.
        aria-busy={drawn < rendered.pieces}
        onClick={(event) => {
          const link = (event.target as HTMLElement).closest('a')
          const href = link?.getAttribute('href')
          if (!link || !href) return
          if (href.startsWith('#')) {
            event.preventDefault()
            // What the link names may be further down, in a piece not drawn yet: draw them all, then follow it.
            if (drawn < rendered.pieces) flushSync(() => setProgress({ of: rendered, drawn: rendered.pieces }))
            const target = findAnchor(event.currentTarget, decodeURIComponent(href.slice(1)))
            target?.scrollIntoView({ block: 'start' })
            if (target instanceof HTMLElement) target.focus({ preventScroll: true })
            return
          }
          // Compare parsed origins: `http://127.0.0.1:4780@evil.example/` starts like this page's URL.
          if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(href)) {
            if (new URL(link.href).origin !== window.location.origin) {
              event.preventDefault()
              window.open(link.href, '_blank', 'noopener,noreferrer')
            }
            return
          }
          // Relative to the README: a part of this module, or nothing; never a route of the app.
          event.preventDefault()
          onLocalLink?.(resolvePath(basePath, href))
        }}
        {...(rendered.pieces === 1 ? { dangerouslySetInnerHTML: { __html: rendered.html(0) } } : {})}
      >
        {rendered.pieces > 1 ? Array.from({ length: drawn }, (_, index) => <div key={index} className="markdown-piece" dangerouslySetInnerHTML={{ __html: rendered.html(index) }} />) : undefined}
      </div>
    </>
  )
}

/**
 * A Markdown document as sanitized HTML, in pieces (cut) when longer than
 * `long` (whole otherwise), each cut before a heading where there is one: a piece is made when first
 * asked for, in order, so heading ids are numbered across the pieces as in one document. It is read
 * once (marked's lexer), so a link's definition anywhere serves every piece.
 */
class MarkdownDocument {
  private readonly parts: Token[][]
  private readonly made: string[] = []
  private readonly headingsMade: Heading[] = []
  /** Heading ids given so far, with how many times each (GitHub's numbering of repeats). */
  private readonly ids = new Map<string, number>()

  constructor(source: string, long: number) {
    const tokens = parser.lexer(source)
    if (parser.defaults.walkTokens) void parser.walkTokens(tokens, parser.defaults.walkTokens)
    this.parts = source.length > long ? cut(tokens) : [tokens]
  }

  get pieces(): number {
    return this.parts.length
  }

  /** Piece `index`'s HTML (and every piece's before it, made now if they were not). */
  html(index: number): string {
    while (this.made.length <= index) this.made.push(this.make(this.parts[this.made.length]!))
    return this.made[index]!
  }

  /** Every second- and third-level heading (the whole document made). */
  headings(): Heading[] {
    this.html(this.parts.length - 1)
    return this.headingsMade
  }

  private make(tokens: Token[]): string {
    const clean = DOMPurify.sanitize(parser.parser(tokens), {
      FORBID_TAGS: ['style', 'form', 'input', 'button', 'iframe', 'object', 'embed'],
      FORBID_ATTR: ['style'],
      RETURN_DOM_FRAGMENT: true
    })
    addHeadingIds(clean, this.ids)
    // An alert is a note to the reader, named by its title (Warning, Tip…), as a screen reader should announce it.
    for (const alert of clean.querySelectorAll('.markdown-alert')) alert.setAttribute('role', 'note')
    wrapTables(clean)
    placeholdImages(clean)
    highlightHcl(clean)
    for (const heading of clean.querySelectorAll('h2, h3')) this.headingsMade.push({ id: heading.id, text: heading.textContent?.trim() ?? '', level: heading.tagName === 'H2' ? 2 : 3 })
    const holder = document.createElement('div')
    holder.append(clean)
    return holder.innerHTML
  }
}

interface Heading {
  id: string
  text: string
  level: number
}

/** Top-level tokens in runs of about FIRST_PIECE, then PIECE, of Markdown, each run after the first starting at a heading when one comes within as much again. */
function cut(tokens: Token[]): Token[][] {
  const runs: Token[][] = [[]]
  let size = 0
  for (const token of tokens) {
    const run = runs[runs.length - 1]!
    const piece = runs.length === 1 ? FIRST_PIECE : PIECE
    if (size >= piece && (token.type === 'heading' || size >= 2 * piece)) {
      runs.push([token])
      size = token.raw.length
    } else {
      run.push(token)
      size += token.raw.length
    }
  }
  return runs
}

/** The README's sections, each a link that scrolls to it (and moves the focus there), leaving the address as it is. */
function Contents({ headings }: { headings: Heading[] }) {
  return (
    <nav className="readme-contents" aria-label="Contents">
      <details>
        <summary>Contents ({headings.length})</summary>
        <ol>
          {headings.map((heading) => (
            <li key={heading.id} className={heading.level === 3 ? 'nested' : undefined}>
              <a
                href={`#${heading.id}`}
                onClick={(event) => {
                  event.preventDefault()
                  const target = document.getElementById(heading.id)
                  target?.scrollIntoView({ block: 'start' })
                  target?.focus({ preventScroll: true })
                }}
              >
                {heading.text}
              </a>
            </li>
          ))}
        </ol>
      </details>
    </nav>
  )
}

/**
 * Each table in a box of its own that scrolls when the table is wider or taller, reachable by keyboard,
 * named by the heading it is under (terraform-docs' "Inputs"), else by its first column.
 */
function wrapTables(root: DocumentFragment): void {
  for (const table of root.querySelectorAll('table')) {
    let before = table.previousElementSibling
    while (before && !/^H[1-6]$/.test(before.tagName)) before = before.previousElementSibling
    const name = before?.textContent?.trim() || `${table.querySelector('th')?.textContent?.trim() ?? 'from the README'}…`
    const box = document.createElement('div')
    box.className = 'table-scroll'
    box.setAttribute('tabindex', '0')
    box.setAttribute('role', 'region')
    box.setAttribute('aria-label', `Table: ${name}`)
    table.replaceWith(box)
    box.append(table)
  }
}

/**
 * Images are not loaded (the page's CSP refuses other sites, and a module's own files are not served
 * to the page): each shows as a tidy placeholder with its alt text and where it lives, not a broken icon.
 */
function placeholdImages(root: DocumentFragment): void {
  for (const image of root.querySelectorAll('img')) {
    const src = image.getAttribute('src') ?? ''
    if (src.startsWith('data:')) continue
    const placeholder = document.createElement('span')
    placeholder.className = 'image-placeholder'
    placeholder.title = src
    const alt = image.getAttribute('alt')?.trim()
    const label = document.createElement('span')
    label.textContent = `Image${alt ? `: ${alt}` : ''}`
    const where = document.createElement('span')
    where.className = 'muted'
    where.textContent = /^(https?:)?\/\//i.test(src) ? ` (${new URL(src, 'https://x.invalid').host})` : src ? ` (${src})` : ''
    placeholder.append(label, where)
    image.replaceWith(placeholder)
  }
}

/**
 * Code blocks fenced as HCL (`hcl`, `terraform`, as provider docs write them, `tf`) highlighted as the
 * module's files are: Prism escapes the text it is given, so the HTML holds only its own spans.
 */
function highlightHcl(root: DocumentFragment): void {
  for (const code of root.querySelectorAll('pre > code.language-hcl, pre > code.language-terraform, pre > code.language-tf')) {
    code.innerHTML = Prism.highlight(code.textContent ?? '', Prism.languages.hcl!, 'hcl')
    code.className = 'language-hcl'
  }
}

/** GitHub's heading ids: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function addHeadingIds(root: DocumentFragment, seen: Map<string, number>): void {
  for (const heading of root.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
    const slug = (heading.textContent ?? '').trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    heading.id = `${ID_PREFIX}${count === 0 ? slug : `${slug}-${count}`}`
    heading.setAttribute('tabindex', '-1')
  }
}

/** The element a README's `#fragment` names: a heading's id, or an `<a name>` (terraform-docs writes `<a name="input_azs">`). */
function findAnchor(container: HTMLElement, fragment: string): Element | null {
  const escaped = CSS.escape(fragment)
  return container.querySelector(`#${CSS.escape(ID_PREFIX + fragment.toLowerCase())}, [name="${escaped}"], #${CSS.escape(ID_PREFIX + fragment)}`)
}

/** `href` resolved against the README's folder in the module (`examples/complete` + `../simple` → `examples/simple`). */
export function resolvePath(basePath: string, href: string): string {
  const path = href.split(/[?#]/)[0]!
  const resolved = new URL(path, `file:///${basePath ? `${basePath}/` : ''}`).pathname
  return decodeURIComponent(resolved).replace(/^\/+|\/+$/g, '')
}
