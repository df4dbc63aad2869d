import semver from 'semver'
import { useQuery } from '@tanstack/react-query'
import { AppLink } from '../../lib/link'
import { formatDate } from '../../lib/format'
import { useSession } from '../../lib/session'
import { Empty, ErrorMessage, Loading } from '../../lib/ui'
import { providerListOptions, type VersionResource } from './api'
import { PublishRelease } from './PublishRelease'

/** An organization's private providers, each leading to its page, and publishing a release. */
export function ProvidersPage({ org, canPublish, registryHostname }: { org: string; canPublish: boolean; registryHostname: string }) {
  const { client } = useSession()
  const providers = useQuery(providerListOptions(client, org))
  if (providers.isPending) return <Loading what="providers" />
  if (providers.isError) return <ErrorMessage error={providers.error} action="Could not list the providers" />
  return (
    <div className="stack">
      {canPublish && <PublishRelease org={org} />}
      {providers.data.data.length === 0 ? (
        <Empty title="No providers yet">
          <p>Publish a release folder (the zips, SHA256SUMS and its signature, as goreleaser writes them) to serve a provider to Terraform from here.</p>
        </Empty>
      ) : (
        <ul className="plain stack-tight" aria-label="Providers">
          {providers.data.data.map((provider) => {
            const versions = versionsOf(provider, providers.data.included ?? [])
            const latest = versions[0]
            return (
              <li key={provider.id} className="card padded stack-tight">
                <div className="row">
                  <h2>
                    <AppLink to={{ page: 'provider', org, name: provider.attributes.name }}>{provider.attributes.name}</AppLink>
                  </h2>
                  <code className="muted">{`${registryHostname}/${org}/${provider.attributes.name}`.toLowerCase()}</code>
                </div>
                <p className="muted">
                  {latest
                    ? `Latest ${latest.attributes.version}, published ${formatDate(latest.attributes['created-at'])} · ${versions.length} version${versions.length === 1 ? '' : 's'}`
                    : 'No version yet'}
                </p>
              </li>
            )
          })}
        </ul>
      )}
    </div>
  )
}

/** A provider's versions, from the list's included resources, newest first (as module versions are listed). */
export function versionsOf(provider: { relationships?: Record<string, unknown> }, included: VersionResource[]): VersionResource[] {
  const byId = new Map(included.map((version) => [version.id, version]))
  return ((provider.relationships?.['registry-provider-versions'] as { data: Array<{ id: string }> } | undefined)?.data ?? [])
    .map(({ id }) => byId.get(id))
    .filter((version): version is VersionResource => version !== undefined)
    .sort((a, b) => semver.rcompare(a.attributes.version, b.attributes.version))
}
