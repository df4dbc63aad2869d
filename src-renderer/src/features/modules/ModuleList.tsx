import { useDeferredValue, useEffect, useRef, useState } from 'react'
import { useInfiniteQuery } from '@tanstack/react-query'
import { useWindowVirtualizer } from '@tanstack/react-virtual'
import { queryOf, replaceAddress } from '../../lib/router'
import { formatDate } from '../../lib/format'
import { useSession } from '../../lib/session'
import { ClearFilters, Empty, ErrorMessage, Loading, StatusBadge } from '../../lib/ui'
import { moduleListOptions, type ModuleFilters } from './api'
import { newest } from './newest'
import { AppLink } from '../../lib/link'
import { InlineMarkdown } from '../../lib/inline-markdown'

const ROW_HEIGHT = 76

/** The module list's orders (Homeport's own `sort`). */
const SORTS: ReadonlyArray<{ value: ModuleFilters['sort']; label: string }> = [
  { value: '', label: 'By name' },
  { value: '-downloads', label: 'Most downloaded' },
  { value: '-published', label: 'Recently published' }
]

/**
 * The organization's modules: search, registry and provider filters (the providers offered with
 * how many modules each has), an order, and a list virtual over the page's own scrolling that fetches
 * pages of 100 as it scrolls, so ten thousand modules scroll as smoothly as ten; each row names the
 * module, says what it is, where its latest version stands and how often it was downloaded.
 */
export function ModuleList({ org, query }: { org: string; query: string }) {
  const { client } = useSession()
  const initial = new URLSearchParams(query)
  const [search, setSearch] = useState(initial.get('q') ?? '')
  const [registry, setRegistry] = useState<ModuleFilters['registry']>((['private', 'public'].includes(initial.get('registry') ?? '') ? initial.get('registry') : '') as ModuleFilters['registry'])
  const [provider, setProvider] = useState(initial.get('provider') ?? '')
  const [sort, setSort] = useState<ModuleFilters['sort']>((SORTS.some((option) => option.value === initial.get('sort')) ? initial.get('sort') : '') as ModuleFilters['sort'])
  const filters: ModuleFilters = { q: useDeferredValue(search.trim()), registry, provider, sort }
  useEffect(() => {
    // The filters live in the address (replaced, not pushed: typing makes no history), so Back from a module finds them again.
    replaceAddress({ page: 'organization', org, tab: 'modules', query: queryOf({ q: filters.q, registry: filters.registry, provider: filters.provider, sort: filters.sort }, ['q', 'registry', 'provider', 'sort']) })
  }, [org, filters.q, filters.registry, filters.provider, filters.sort])
  const modules = useInfiniteQuery(moduleListOptions(client, org, filters))
  const filtered = Boolean(filters.q || filters.registry || filters.provider)
  const rows = modules.data?.pages.flatMap((page) => page.data) ?? []
  const total = modules.data?.pages[0]?.meta?.pagination?.['total-count'] ?? 0
  // The providers among the modules the other filters leave (the last answer's, while the next loads); the chosen one stays offered.
  const providers = modules.data?.pages[0]?.meta?.['provider-counts'] ?? {}
  const offered = Object.entries(provider && !(provider in providers) ? { ...providers, [provider]: 0 } : providers).sort(([a], [b]) => a.localeCompare(b))

  // The page scrolls, not a box of its own (whose bottom was below the fold): the list is virtual over the window,
  // from where it starts on the page, measured again whenever what is above it changes size.
  const list = useRef<HTMLDivElement>(null)
  const [listTop, setListTop] = useState(0)
  const listed = rows.length > 0
  useEffect(() => {
    const element = list.current
    if (!listed || !element) return
    const observer = new ResizeObserver(() => setListTop(element.getBoundingClientRect().top + window.scrollY))
    observer.observe(element.parentElement ?? document.body)
    return () => observer.disconnect()
  }, [listed])
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    scrollMargin: listTop
  })
  const items = virtualizer.getVirtualItems()
  const lastIndex = items.at(-1)?.index ?? -1
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = modules
  useEffect(() => {
    if (lastIndex >= rows.length - 20 && hasNextPage && !isFetchingNextPage) void fetchNextPage()
  }, [lastIndex, rows.length, hasNextPage, isFetchingNextPage, fetchNextPage])

  return (
    <section aria-label="Modules" className="stack">
      <div className="filters" role="search">
        <input
          type="search"
          aria-label="Search modules by name, namespace, provider or description"
          placeholder="Search modules"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
        <select aria-label="Registry" value={registry} onChange={(event) => setRegistry(event.target.value as ModuleFilters['registry'])}>
          <option value="">All registries</option>
          <option value="private">Private</option>
          <option value="public">Public (curated)</option>
        </select>
        <select aria-label="Provider" value={provider} onChange={(event) => setProvider(event.target.value)}>
          <option value="">All providers</option>
          {offered.map(([name, count]) => (
            <option key={name} value={name}>
              {name} ({count})
            </option>
          ))}
        </select>
        <select aria-label="Sort" value={sort} onChange={(event) => setSort(event.target.value as ModuleFilters['sort'])}>
          {SORTS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>

      {modules.isPending && <Loading what="modules" />}
      <ErrorMessage error={modules.error} action="Could not load modules" />
      {modules.isSuccess && rows.length === 0 && (
        <Empty title={filtered ? 'No module matches' : 'No modules yet'}>
          {filtered ? (
            <ClearFilters
              onClear={() => {
                setSearch('')
                setRegistry('')
                setProvider('')
              }}
            />
          ) : (
            <AppLink to={{ page: 'organization', org, tab: 'publish' }}>Publish a module folder</AppLink>
          )}
        </Empty>
      )}
      {rows.length > 0 && (
        <>
          <p className="muted count" aria-live="polite">
            {total.toLocaleString()} module{total === 1 ? '' : 's'}
          </p>
          <div ref={list} className="virtual-list" role="list" aria-label="Module list">
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {items.map((item) => {
                const module = rows[item.index]!
                const { attributes } = module
                const latest = newest(attributes['version-statuses'].filter((entry) => entry.status === 'ok').map((entry) => entry.version))
                // A version that failed to publish is what makes a module broken: said in the list, not only on its page.
                const failed = attributes['version-statuses'].filter((entry) => entry.status.endsWith('_failed')).length
                return (
                  // A list item holding a link: screen readers announce it as both (a link given role="listitem" was no longer a link to them).
                  <div key={module.id} role="listitem" className="module-row-slot" style={{ transform: `translateY(${item.start - listTop}px)`, height: ROW_HEIGHT }}>
                    <AppLink
                      className="module-row"
                      to={{
                        page: 'module',
                        org,
                        registry: attributes['registry-name'],
                        namespace: attributes.namespace,
                        name: attributes.name,
                        provider: attributes.provider
                      }}
                    >
                      <span className="module-name">
                        <span className="module-title">
                          <strong>{attributes.name}</strong>{' '}
                          <span className="muted">
                            {attributes.namespace}/{attributes.name}/{attributes.provider}
                          </span>
                        </span>
                        <span className="module-description">
                          {attributes.description ? <InlineMarkdown text={attributes.description} /> : attributes['registry-name'] === 'public' ? 'A public module, curated here.' : 'No description yet.'}
                        </span>
                      </span>
                      <span className="module-facts">
                        <span className={`badge ${attributes['registry-name'] === 'public' ? 'info' : 'neutral'}`}>{attributes['registry-name']}</span>
                        {/* A module without a published version says so once, in its status. */}
                        {latest ? <span className="module-version">v{latest}</span> : <StatusBadge status={attributes.status} of="module" />}
                        {latest && attributes.status !== 'setup_complete' && <StatusBadge status={attributes.status} of="module" />}
                        {failed > 0 && (
                          <span className="badge bad" title="See its versions on the module's page">
                            {failed} version{failed === 1 ? '' : 's'} failed
                          </span>
                        )}
                      </span>
                      <span className="muted module-date">
                        updated {formatDate(attributes['updated-at'])}
                        {attributes.downloads !== undefined && (
                          <>
                            <br />
                            {attributes.downloads.toLocaleString()} download{attributes.downloads === 1 ? '' : 's'}
                          </>
                        )}
                      </span>
                    </AppLink>
                  </div>
                )
              })}
            </div>
          </div>
        </>
      )}
    </section>
  )
}
