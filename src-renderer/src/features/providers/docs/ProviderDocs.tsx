import { startTransition, useEffect, useId, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { ListLink } from '../../../lib/link'
import { Markdown } from '../../../lib/markdown'
import { navigate, type Route } from '../../../lib/router'
import { useSession } from '../../../lib/session'
import { Empty, ErrorMessage, Loading } from '../../../lib/ui'
import { docContentOptions, versionDocsOptions, type DocOutline, type DocsSource } from './api'
import { CATEGORY_LABELS, type DocCategory } from '@shared/provider-docs'
import { docKey, docMarkdown, docName, linkedDoc, navigationOf, type NavigationGroup } from './navigation'

/** How many of the navigation's links are drawn with the doc: more than a screen holds. */
const FIRST_SCREEN = 120

/** The navigation's groups cut after `count` links (all of them when it is infinite). */
function firstLinks(groups: NavigationGroup[], count: number): NavigationGroup[] {
  if (!Number.isFinite(count)) return groups
  let left = count
  const cut: NavigationGroup[] = []
  for (const group of groups) {
    if (left <= 0) break
    const sections = group.sections.map((section) => {
      const docs = section.docs.slice(0, Math.max(left, 0))
      left -= docs.length
      return { ...section, docs }
    })
    cut.push({ ...group, sections: sections.filter((section) => section.docs.length > 0) })
  }
  return cut
}

/** What the address holds of the docs shown: the version and the doc (`resources/server`). */
export interface DocsPlace {
  version?: string
  doc?: string
}

/**
 * A provider's documentation, as the public registry shows it: the docs in a sidebar by category and
 * subcategory with a filter, a version switch, and the doc chosen rendered like a README (sanitized,
 * its HCL highlighted, the registry's callouts as alerts, its links to other docs opening them here).
 * Where the place is kept is the page's (`linkTo`): every doc is a link.
 */
export function ProviderDocs({ source, place, linkTo, empty }: { source: DocsSource; place: DocsPlace; linkTo: (place: DocsPlace) => Route; empty?: React.ReactNode }) {
  const { client } = useSession()
  const [filter, setFilter] = useState('')
  const versionId = useId()
  const outline = useQuery(versionDocsOptions(client, source, place.version))
  // The navigation of the largest providers is a thousand links: its first screen is drawn with the doc,
  // the rest just after, in a transition the reader's input interrupts.
  const [drawnWhole, setDrawnWhole] = useState<unknown>()
  useEffect(() => startTransition(() => setDrawnWhole(outline.data)), [outline.data])
  const budget = drawnWhole === outline.data ? Number.POSITIVE_INFINITY : FIRST_SCREEN
  if (outline.isPending) return <Loading what="the documentation" />
  if (outline.isError) return <ErrorMessage error={outline.error} action="Could not read the documentation" />
  const { version, versions, docs } = outline.data
  const groups = firstLinks(navigationOf(source.type, docs, filter), budget)
  const chosen = docs.find((doc) => doc.language === 'hcl' && docKey(doc) === place.doc) ?? docs.find((doc) => doc.category === 'overview') ?? docs.find((doc) => doc.language === 'hcl')
  const versionSwitch = (
    <div className="docs-version">
      <label htmlFor={versionId}>Version</label>
      <select id={versionId} value={version} onChange={(event) => navigate(linkTo({ version: event.target.value, doc: place.doc }))}>
        {versions.map((candidate) => (
          <option key={candidate} value={candidate}>
            {candidate}
          </option>
        ))}
      </select>
    </div>
  )
  if (docs.length === 0) {
    return (
      <div className="stack-tight">
        {versions.length > 1 && versionSwitch}
        {empty ?? <Empty title={`No documentation for ${version}`} />}
      </div>
    )
  }
  return (
    <div className="docs-layout">
      <nav className="docs-nav" aria-label="Documentation">
        {versionSwitch}
        <input type="search" aria-label="Filter the docs" placeholder={`Filter: ${source.type}_…`} value={filter} onChange={(event) => setFilter(event.target.value)} />
        {groups.length === 0 && <p className="muted">No doc is named like “{filter}”.</p>}
        {groups.map((group) => (
          <section key={group.title} aria-label={group.title}>
            <h3 className="docs-group">{group.title}</h3>
            {group.sections.map((section) => (
              <div key={section.category}>
                {group.sections.length > 1 || group.title !== CATEGORY_LABELS[section.category as DocCategory] ? <h4 className="docs-category">{CATEGORY_LABELS[section.category as DocCategory]}</h4> : null}
                <ul>
                  {section.docs.map((doc) => (
                    <li key={doc.id}>
                      <ListLink to={linkTo({ version: place.version, doc: docKey(doc) })} aria-current={doc.id === chosen?.id ? 'page' : undefined}>
                        {docName(source.type, doc)}
                      </ListLink>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </section>
        ))}
      </nav>
      {chosen && <DocView key={chosen.id} source={source} doc={chosen} docs={docs} open={(doc) => navigate(linkTo({ version: place.version, doc: docKey(doc) }))} />}
    </div>
  )
}

/** One doc, rendered; a link to another doc of the version opens it here. */
function DocView({ source, doc, docs, open }: { source: DocsSource; doc: DocOutline; docs: DocOutline[]; open: (doc: DocOutline) => void }) {
  const { client } = useSession()
  const content = useQuery(docContentOptions(client, source, doc.id))
  const folder = doc.path.split('/').slice(0, -1).join('/')
  return (
    <article className="docs-content" aria-label={docName(source.type, doc)}>
      <p className="muted">
        {CATEGORY_LABELS[doc.category as DocCategory] ?? doc.category}
        {doc.subcategory ? ` · ${doc.subcategory}` : ''} · <code>{doc.path}</code>
      </p>
      {content.isPending && <Loading what={doc.title} />}
      {content.isError && <ErrorMessage error={content.error} action={`Could not read ${doc.path}`} />}
      {content.data?.truncated && <p role="note">The registry cut this doc at 500 KB: its end is missing.</p>}
      {content.data && (
        <Markdown
          source={docMarkdown(content.data.content)}
          basePath={folder}
          onLocalLink={(path) => {
            const target = linkedDoc(docs, path)
            if (target) open(target)
            return target !== undefined
          }}
          contents
        />
      )}
    </article>
  )
}
