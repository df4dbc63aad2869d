import { useQuery } from '@tanstack/react-query'
import { PUBLIC_MIRROR_PREFIXES } from '@shared/terraform-config'
import { AppLink } from '../../../lib/link'
import { queryOf } from '../../../lib/router'
import { useSession } from '../../../lib/session'
import { Empty } from '../../../lib/ui'
import { versionDocsOptions } from './api'
import { ProviderDocs, type DocsPlace } from './ProviderDocs'
import { ProviderUsage } from '../ProviderUsage'

/**
 * A public provider mirrored here, as the public registry shows it: how to require it, and its
 * documentation for the versions mirrored, read from what Homeport keeps (offline as online).
 */
export function MirroredProviderPage({ hostname, namespace, type, place }: { hostname: string; namespace: string; type: string; place: DocsPlace }) {
  const { client } = useSession()
  const prefix = PUBLIC_MIRROR_PREFIXES[hostname]
  const docsSource = { base: (prefix ?? '').replace(/\/v1$/, ''), namespace, type }
  // The version shown (the newest with docs unless one is chosen): the same read as the docs', made once.
  const shown = useQuery({ ...versionDocsOptions(client, docsSource, place.version), enabled: prefix !== undefined })
  const source = `${hostname}/${namespace}/${type}`
  const breadcrumbs = (
    <p className="breadcrumbs">
      <AppLink to={{ page: 'mirror' }}>Provider mirror</AppLink>
    </p>
  )
  if (!prefix) {
    return (
      <div className="stack">
        {breadcrumbs}
        <Empty title={`${hostname} is not a public registry Homeport mirrors`} />
      </div>
    )
  }
  return (
    <div className="stack">
      <header>
        {breadcrumbs}
        <h1>{type}</h1>
        <p className="muted">
          <code>{source}</code> · a public provider mirrored here
        </p>
      </header>
      {/* Terraform's own registry is its default: its providers are required without the hostname, as its docs show them. */}
      {shown.data && <ProviderUsage source={hostname === 'registry.terraform.io' ? `${namespace}/${type}` : source} version={shown.data.version} />}
      <section className="card padded stack-tight" aria-labelledby="provider-docs">
        <h2 id="provider-docs">Documentation</h2>
        <ProviderDocs
          source={docsSource}
          place={place}
          linkTo={(next) => ({ page: 'mirrored-provider', hostname, namespace, type, query: queryOf({ ...next }, ['version', 'doc']) })}
          empty={<Empty title="No documentation was kept for this version">Its docs are fetched from the public registry when it is mirrored ahead of time (the Mirror page), or just after Terraform first installs it, while the registry is reachable.</Empty>}
        />
      </section>
    </div>
  )
}
