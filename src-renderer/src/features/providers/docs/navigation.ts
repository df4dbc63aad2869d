import { DOC_CATEGORIES } from '@shared/provider-docs'
import type { DocOutline } from './api'

/** A doc's key in the address (`resources/server`). */
export const docKey = (doc: Pick<DocOutline, 'category' | 'slug'>) => `${doc.category}/${doc.slug}`

/** What a configuration names a doc's subject by: `widget_server`, `provider::widget::parse_arn`, a guide's title. */
export function docName(providerName: string, doc: DocOutline): string {
  if (doc.category === 'functions') return doc.slug
  if (doc.category === 'overview' || doc.category === 'guides') return doc.title
  return `${providerName}_${doc.slug}`
}

export interface NavigationGroup {
  /** The group's heading: a category's name, or a subcategory's. */
  title: string
  sections: Array<{ category: string; docs: DocOutline[] }>
}

/**
 * The docs in the public registry's navigation order (shared/research/provider-docs.md §1c): the
 * overview, guides without a subcategory, then each guide subcategory; functions; resources and data
 * sources (and the newer kinds) without a subcategory; then each subcategory's, alphabetically, with
 * Beta and Deprecated last. Only HCL docs (the CDKTF ones repeat them), narrowed to names with `filter`.
 */
export function navigationOf(providerName: string, docs: DocOutline[], filter: string): NavigationGroup[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean)
  const shown = docs.filter((doc) => doc.language === 'hcl' && words.every((word) => docName(providerName, doc).toLowerCase().includes(word) || doc.slug.includes(word)))
  const byName = (a: DocOutline, b: DocOutline) => docName(providerName, a).localeCompare(docName(providerName, b))
  const groups: NavigationGroup[] = []
  const add = (title: string, picked: DocOutline[]) => {
    const sections = DOC_CATEGORIES.map((category) => ({ category, docs: picked.filter((doc) => doc.category === category).sort(byName) })).filter((section) => section.docs.length > 0)
    if (sections.length > 0) groups.push({ title, sections })
  }
  add('Overview', shown.filter((doc) => doc.category === 'overview'))
  const guides = shown.filter((doc) => doc.category === 'guides')
  add('Guides', guides.filter((doc) => !doc.subcategory))
  for (const subcategory of subcategoriesOf(guides)) add(subcategory, guides.filter((doc) => doc.subcategory === subcategory))
  add('Functions', shown.filter((doc) => doc.category === 'functions'))
  const rest = shown.filter((doc) => !['overview', 'guides', 'functions'].includes(doc.category))
  add(providerName, rest.filter((doc) => !doc.subcategory))
  for (const subcategory of subcategoriesOf(rest)) add(subcategory, rest.filter((doc) => doc.subcategory === subcategory))
  return groups
}

/** The subcategories the docs name, alphabetically, Beta and Deprecated last (as the registry orders them). */
function subcategoriesOf(docs: DocOutline[]): string[] {
  const last = ['Beta', 'Deprecated']
  const named = [...new Set(docs.flatMap((doc) => (doc.subcategory ? [doc.subcategory] : [])))]
  return [...named.filter((name) => !last.includes(name)).sort((a, b) => a.localeCompare(b)), ...last.filter((name) => named.includes(name))]
}

/**
 * The markdown a doc shows: its frontmatter taken off (the registry does not render it), and the
 * registry's callouts (`->` a note, `~>` a warning, `!>` a caution, at the start of a paragraph) as
 * GitHub's alerts, which the README renderer shows as alerts.
 */
export function docMarkdown(content: string): string {
  const lines = content.replace(/^\uFEFF/, '').split(/\r?\n/)
  let body = lines
  if (lines[0]?.trim() === '---') {
    const end = lines.findIndex((line, index) => index > 0 && /^(---|\.\.\.)\s*$/.test(line))
    if (end !== -1) body = lines.slice(end + 1)
  }
  const kinds: Record<string, string> = { '->': 'NOTE', '~>': 'WARNING', '!>': 'CAUTION' }
  const out: string[] = []
  let callout = false
  for (const line of body) {
    const sigil = /^(->|~>|!>)\s?(.*)$/.exec(line)
    if (sigil && (out.length === 0 || out.at(-1)!.trim() === '')) {
      // `-> **Note:** …`: the alert's own title says it, so the word goes, and names the alert when it is another (`-> **Warning:**`).
      const named = /^\*\*(note|tip|important|warning|caution)(?::\*\*|\*\*:)\s*(.*)$/i.exec(sigil[2]!)
      out.push(`> [!${named ? named[1]!.toUpperCase() : kinds[sigil[1]!]}]`, `> ${named ? named[2] : sigil[2]}`)
      callout = true
    } else if (callout && line.trim() !== '') out.push(`> ${line}`)
    else {
      callout = false
      out.push(line)
    }
  }
  return out.join('\n')
}

/**
 * The doc a link inside a doc points at, if it is one: a path relative to the doc (`../resources/network.md`),
 * or the old website's (`/docs/providers/widget/r/network.html`), resolved against `resolved` (the
 * link made relative to the repository's root).
 */
export function linkedDoc(docs: DocOutline[], resolved: string): DocOutline | undefined {
  const exact = docs.find((doc) => doc.language === 'hcl' && doc.path === resolved)
  if (exact) return exact
  const website = /(?:^|\/)(r|d|resources|data-sources|guides|functions|ephemeral-resources)\/([^/.]+)(?:\.[a-z.]+)?$/.exec(resolved)
  if (!website) return undefined
  const category = website[1] === 'r' ? 'resources' : website[1] === 'd' ? 'data-sources' : website[1]
  return docs.find((doc) => doc.language === 'hcl' && doc.category === category && doc.slug === website[2])
}
