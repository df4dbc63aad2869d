import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * No relative link in the README or docs/ is broken: every file it names exists, and every
 * `#anchor` into a Markdown page is one of that page's headings (as GitHub makes their anchors).
 */
const ROOT = join(import.meta.dirname, '..', '..')

function pages(): string[] {
  const found = ['README.md']
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.md')) found.push(path)
    }
  }
  walk('docs')
  return found
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-')

function anchorsOf(page: string): Set<string> {
  const text = readFileSync(join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '')
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1]!.trim())))
}

/** Every Markdown link and image outside code, as written. */
function linksOf(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '')
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!)
}

describe('the README and docs/', () => {
  it.each(pages())('%s links only to what exists', (page) => {
    const broken: string[] = []
    for (const link of linksOf(page)) {
      if (/^(https?:|mailto:)/.test(link)) continue
      const [path = '', anchor] = link.split('#')
      const target = path === '' ? page : relative(ROOT, join(ROOT, dirname(page), decodeURIComponent(path)))
      if (!existsSync(join(ROOT, target))) broken.push(`${link}: no ${target}`)
      else if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor)) broken.push(`${link}: ${target} has no heading #${anchor}`)
    }
    expect(broken).toEqual([])
  })

  it('keeps the README short: what Homeport is, how to start it and test it, and a map of docs/', () => {
    expect(readFileSync(join(ROOT, 'README.md')).length).toBeLessThanOrEqual(10 * 1024)
  })
})
