const DESCRIPTION_MAX = 300

/**
 * The first paragraph of prose in a README (no headings, badges or HTML), as plain text: a module's
 * description as lists show it. Ingest keeps the root's; the GUI describes a collection's submodules.
 */
export function readmeDescription(readme: string): string {
  const paragraphs = readme
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/```[\s\S]*?```/g, '')
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
  const prose = paragraphs.find((paragraph) => paragraph && !/^(#|!\[|\[!\[|<|\||[-*+] |>)/.test(paragraph))
  if (!prose) return ''
  const text = prose
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_]{1,2}([^*_]+)[*_]{1,2}/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
  if (text.length <= DESCRIPTION_MAX) return text
  return `${text.slice(0, text.lastIndexOf(' ', DESCRIPTION_MAX - 1))}…`
}
