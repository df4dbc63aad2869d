import { useQuery } from '@tanstack/react-query'
import { InlineMarkdown } from '../../lib/inline-markdown'
import { AppLink } from '../../lib/link'
import { useSession } from '../../lib/session'
import { StatusBadge } from '../../lib/ui'
import { docsOptions, downloadsOptions, type ModuleAddress, type ModuleAttributes } from '../../features/modules/api'

/**
 * What the registry's module page says first: its name and what it is (the shown version's README's
 * first paragraph), then its address, registry and status, who publishes it, how often it was
 * installed, and the repository it comes from.
 */
export function ModuleHeader({ address, attributes, version }: { address: ModuleAddress; attributes: ModuleAttributes; version: string | undefined }) {
  const { client } = useSession()
  const docs = useQuery({ ...docsOptions(client, address, version ?? ''), enabled: version !== undefined })
  const downloads = useQuery({ ...downloadsOptions(client, address), enabled: attributes['registry-name'] === 'private' })
  const label = `${attributes.namespace}/${attributes.name}/${attributes.provider}`
  const source = docs.data?.source ?? ''
  const total = downloads.data?.data.attributes.total
  return (
    <header className="page-header module-header">
      <p className="breadcrumbs">
        <AppLink to={{ page: 'organization', org: address.org, tab: 'modules' }}>{address.org}</AppLink> / modules
      </p>
      <h1 id="module-heading">{attributes.name}</h1>
      {docs.data?.description && (
        <p className="module-summary">
          <InlineMarkdown text={docs.data.description} />
        </p>
      )}
      <p className="muted module-facts-line">
        {label} · <span className={`badge ${attributes['registry-name'] === 'public' ? 'info' : 'neutral'}`}>{attributes['registry-name']}</span>{' '}
        <StatusBadge status={attributes.status} of="module" />
        {attributes['registry-name'] === 'private' ? ` · published by ${address.org}` : ` · from the public registry, curated by ${address.org}`}
        {attributes['publishing-mechanism'] && ` from ${attributes['publishing-mechanism'] === 'branch' ? 'a branch' : 'tags'}`}
        {total !== undefined && ` · ${total.toLocaleString()} download${total === 1 ? '' : 's'}`}
        {/^https?:\/\//.test(source) && (
          <>
            {' · '}
            <a href={source} target="_blank" rel="noreferrer noopener">
              Source repository
            </a>
          </>
        )}
      </p>
    </header>
  )
}
