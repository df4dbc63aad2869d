import { useQuery } from '@tanstack/react-query'
import type { SearchHitAttributes } from '@shared/wire/search'
import { AppLink } from '../../lib/link'
import { InlineMarkdown } from '../../lib/inline-markdown'
import { useSession } from '../../lib/session'
import { Empty, ErrorMessage, Loading } from '../../lib/ui'
import { hitRoute, searchOptions } from './api'
import { CATEGORY_LABELS, type DocCategory } from '@shared/provider-docs'

const KINDS: ReadonlyArray<{ kind: SearchHitAttributes['kind']; title: string }> = [
  { kind: 'module', title: 'Modules' },
  { kind: 'provider', title: 'Providers' },
  { kind: 'provider-doc', title: 'Provider docs' },
  { kind: 'organization', title: 'Organizations' }
]

/** What a search found, by kind, each a link to its page; modules best first, with where the words were found. */
export function SearchPage({ query }: { query: string }) {
  const { client } = useSession()
  const results = useQuery(searchOptions(client, query))
  return (
    <section className="stack" aria-labelledby="search-heading">
      <h1 id="search-heading">{query ? `Search: ${query}` : 'Search'}</h1>
      {!query && <p className="muted">Type words in the search box above (or press /): names, descriptions, inputs, resources and READMEs are searched.</p>}
      {results.isLoading && <Loading what="the results" />}
      <ErrorMessage error={results.error} action="Could not search" />
      {results.data && results.data.data.length === 0 && (
        <Empty title={`Nothing matches “${query}”`}>
          <p>Every word must be found: try fewer, or other words.</p>
        </Empty>
      )}
      {KINDS.map(({ kind, title }) => {
        const hits = results.data?.data.filter((hit) => hit.attributes.kind === kind) ?? []
        if (hits.length === 0) return null
        return (
          <section key={kind} className="card padded stack-tight" aria-labelledby={`search-${kind}`}>
            <h2 id={`search-${kind}`}>
              {title} <span className="count-pill">{hits.length}</span>
            </h2>
            <ul className="plain search-hits">
              {hits.map((hit) => (
                <li key={hit.id}>
                  <AppLink to={hitRoute(hit)}>
                    <code>{hit.attributes.doc?.name ?? hit.attributes.address}</code>
                  </AppLink>{' '}
                  {hit.attributes.doc && (
                    <span className="muted">
                      {CATEGORY_LABELS[hit.attributes.doc.category as DocCategory] ?? hit.attributes.doc.category} of {hit.attributes.address} {hit.attributes.doc.version}{' '}
                    </span>
                  )}
                  {hit.attributes.registry && <span className="badge neutral">{hit.attributes.registry}</span>}
                  {hit.attributes.description && (
                    <p className="muted">
                      <InlineMarkdown text={hit.attributes.description} />
                    </p>
                  )}
                  {kind === 'module' && hit.attributes.matched.length > 0 && <p className="hint">Found in: {hit.attributes.matched.join(', ')}</p>}
                </li>
              ))}
            </ul>
          </section>
        )
      })}
    </section>
  )
}
