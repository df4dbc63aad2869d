import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { NotFound } from '../../lib/not-found'
import { AppLink } from '../../lib/link'
import { navigate } from '../../lib/router'
import { useSession } from '../../lib/session'
import { ConfirmButton, ErrorMessage, Loading } from '../../lib/ui'
import { serverInfoOptions } from '../terraform/api'
import { deleteProvider, providerKeys, providerListOptions } from './api'
import { VersionTable } from './ProviderVersions'
import { versionsOf } from './ProvidersPage'
import { ProviderUsage } from './ProviderUsage'
import { queryOf } from '../../lib/router'
import { ProviderDocs, type DocsPlace } from './docs/ProviderDocs'
import { versionDocsOptions } from './docs/api'
import { DocsUpload } from './docs/DocsUpload'

/**
 * A private provider's page (HCP's provider page): the `required_providers` block to copy for its latest
 * version, its documentation, then every version with the key that signed it, its platforms and status,
 * and deleting it.
 */
export function ProviderPage({ org, name, place = {} }: { org: string; name: string; place?: DocsPlace }) {
  const { client } = useSession()
  const providers = useQuery(providerListOptions(client, org))
  const info = useQuery(serverInfoOptions(client))
  // The docs' outline is asked for beside the provider list, not after it: the doc shows one round trip sooner.
  const docsSource = { base: '/api/registry', namespace: org, type: name }
  useQuery(versionDocsOptions(client, docsSource, place.version))
  const breadcrumbs = (
    <p className="breadcrumbs">
      <AppLink to={{ page: 'organizations' }}>Organizations</AppLink> / <AppLink to={{ page: 'organization', org, tab: 'modules' }}>{org}</AppLink> /{' '}
      <AppLink to={{ page: 'organization', org, tab: 'providers' }}>Providers</AppLink>
    </p>
  )
  if (providers.isPending) return <Loading what={name} />
  if (providers.isError) return <ErrorMessage error={providers.error} action={`Could not read ${name}`} />
  const provider = providers.data.data.find((candidate) => candidate.attributes.name === name)
  if (!provider) {
    return (
      <NotFound title="Provider not found" back={{ to: { page: 'organization', org, tab: 'providers' }, label: `Back to ${org}’s providers` }}>
        {org} has no provider {name} that you may see: it may have been deleted, or the address mistyped.
      </NotFound>
    )
  }
  const versions = versionsOf(provider, providers.data.included ?? [])
  const source = `${info.data?.registryHostname ?? 'homeport.localhost'}/${org}/${name}`.toLowerCase()
  // Terraform installs a prerelease only when a constraint names it: the usage is for the newest stable version.
  const latest = versions.find((version) => !version.attributes.version.includes('-')) ?? versions[0]
  return (
    <div className="stack">
      <header>
        {breadcrumbs}
        <h1>{name}</h1>
        <p className="muted">
          <code>{source}</code> · a private provider of {org}
          {latest && ` · latest ${latest.attributes.version}`}
          {latest && latest.attributes.protocols.length > 0 && `, plugin protocol ${latest.attributes.protocols.join(', ')} (Terraform ${latest.attributes.protocols.some((protocol) => protocol.startsWith('5')) ? '0.12' : '1.0'} and later)`}
        </p>
      </header>
      {latest && <ProviderUsage source={source} version={latest.attributes.version} />}
      {versions.length > 0 && (
        <section className="card padded stack-tight" aria-labelledby="provider-docs">
          <h2 id="provider-docs">Documentation</h2>
          {provider.attributes.permissions['can-delete'] && <DocsUpload org={org} name={name} versions={versions.map((version) => version.attributes.version)} />}
          <ProviderDocs
            source={docsSource}
            place={place}
            linkTo={(next) => ({ page: 'provider', org, name, query: queryOf({ ...next }, ['version', 'doc']) })}
            empty={<p className="muted">No docs yet for this version: upload the repository’s docs/ folder (tfplugindocs’ layout) or its legacy website/docs/ folder.</p>}
          />
        </section>
      )}
      <section className="card padded stack-tight" aria-labelledby="provider-versions">
        <h2 id="provider-versions">Versions</h2>
        {versions.length === 0 ? <p className="muted">No version yet: publish a release from the Providers tab.</p> : <VersionTable org={org} name={name} versions={versions} />}
      </section>
      {provider.attributes.permissions['can-delete'] && <DeleteProvider org={org} name={name} />}
    </div>
  )
}

/** Deleting the provider with every version, last on its page (never the first thing a keyboard reaches). */
function DeleteProvider({ org, name }: { org: string; name: string }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const remove = useMutation({
    mutationFn: () => deleteProvider(client, org, name),
    onSuccess: async () => {
      navigate({ page: 'organization', org, tab: 'providers' })
      await queryClient.invalidateQueries({ queryKey: providerKeys.all(org) })
    }
  })
  return (
    <section className="card padded stack-tight" aria-labelledby="delete-provider">
      <h2 id="delete-provider">Delete {name}</h2>
      <p className="muted">Every version goes, with its files; configurations that require it can no longer install it.</p>
      <div>
        <ConfirmButton label={`Delete ${name}`} confirm={`Delete ${name} with every version?`} onConfirm={() => remove.mutate()} busy={remove.isPending} />
      </div>
      {remove.isError && <ErrorMessage error={remove.error} />}
    </section>
  )
}
