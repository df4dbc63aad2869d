import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { formatDate, formatDateTime } from '../../lib/format'
import { AppLink } from '../../lib/link'
import { useSession } from '../../lib/session'
import { PlatformChoice } from '../../lib/folder-drop'
import { ActionsHeader, ConfirmButton, Empty, ErrorMessage, Loading } from '../../lib/ui'
import { PUBLIC_REGISTRY_HOSTS, TERRAFORM_REGISTRY } from '@shared/terraform-config'
import { mirrorOptions, useMirrorProvider, useRemoveMirrored } from './api'
import { gateVersionsOptions, verdictBadge, type GateVersionAttributes } from '../gate/api'
import type { Resource } from '@shared/wire/jsonapi'
import type { MirroredProviderAttributes } from '@shared/wire/providers'

/**
 * Public providers mirrored from Terraform's and OpenTofu's registries, each from its own upstream
 * and with its own signatures, for `terraform init` and `tofu init` with the network off: what is
 * here, and (for the site admin) mirroring more while online.
 */
export function MirrorPage() {
  const { client } = useSession()
  const mirror = useQuery(mirrorOptions(client))
  const [registry, setRegistry] = useState(TERRAFORM_REGISTRY)
  const [source, setSource] = useState('')
  const [versions, setVersions] = useState('')
  const [platforms, setPlatforms] = useState<string[]>(['linux_amd64'])
  const add = useMirrorProvider(client)
  const remove = useRemoveMirrored(client)
  return (
    <div className="stack">
      <header>
        <h1>Public provider mirror</h1>
        <p className="muted">
          Public providers kept here, from registry.terraform.io and registry.opentofu.org apart, each with that registry’s own signatures, so that <code>terraform init</code> and <code>tofu init</code> install them offline. Packages are also mirrored the first time Terraform asks for them while the upstream registry is reachable, and a folder written by <code>terraform providers mirror</code>, or a provider’s release folder with the key that signed it, is imported with <code>homeport import-providers</code>.
        </p>
      </header>
      <form
        className="card padded stack-tight"
        aria-label="Mirror a provider"
        onSubmit={(event) => {
          event.preventDefault()
          add.mutate({ source: `${registry}/${source.trim()}`, versions: versions.trim(), platforms })
        }}
      >
        <h2>Mirror a provider</h2>
        <label htmlFor="mirror-registry">Public registry</label>
        <select id="mirror-registry" className="fit" value={registry} onChange={(event) => setRegistry(event.target.value)}>
          {PUBLIC_REGISTRY_HOSTS.map((host) => (
            <option key={host}>{host}</option>
          ))}
        </select>
        <label htmlFor="mirror-source">Provider (namespace/type)</label>
        <input id="mirror-source" value={source} onChange={(event) => setSource(event.target.value)} placeholder="hashicorp/aws" />
        <label htmlFor="mirror-versions">Versions (a constraint; empty for all)</label>
        <input id="mirror-versions" value={versions} onChange={(event) => setVersions(event.target.value)} placeholder="~> 5.0" />
        <PlatformChoice legend="Platforms" value={platforms} onChange={setPlatforms} />
        <button type="submit" className="primary fit" disabled={!source.trim() || platforms.length === 0 || add.isPending}>
          {add.isPending ? 'Mirroring…' : 'Mirror'}
        </button>
        {add.isError && <ErrorMessage error={add.error} action="Could not mirror it" />}
        {add.isSuccess && (
          <p role="status">
            Mirrored {add.data.map((entry) => `${entry.version} ${entry.platform}`).join(', ')}.
          </p>
        )}
      </form>
      {mirror.isPending && <Loading what="the mirror" />}
      {mirror.isError && <ErrorMessage error={mirror.error} action="Could not read the mirror" />}
      {mirror.data && mirror.data.data.length === 0 && (
        <Empty title="Nothing mirrored yet">
          <p>Mirror a provider above, run terraform init once online with the air-gapped configuration (Connect Terraform), or import a folder written by terraform providers mirror (homeport import-providers).</p>
        </Empty>
      )}
      {remove.isError && <ErrorMessage error={remove.error} action="Could not remove it" />}
      {mirror.data && mirror.data.data.length > 0 && (
        <div className="table-scroll card" tabIndex={0} role="region" aria-label="Mirrored providers">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Version</th>
                <th scope="col">Platforms</th>
                <th scope="col">Signed by key</th>
                <th scope="col">Gate</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {mirror.data.data.map((provider) => (
                <MirroredRows key={provider.id} provider={provider} remove={remove} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  )
}

/** One mirrored provider's versions, each with what the installation's gate does with it (docs/guide/the-gate.md). */
function MirroredRows({ provider, remove }: { provider: Resource<MirroredProviderAttributes>; remove: ReturnType<typeof useRemoveMirrored> }) {
  const { client } = useSession()
  const { hostname, namespace, type, versions } = provider.attributes
  const gate = useQuery(gateVersionsOptions(client, undefined, 'provider', `${hostname}/${namespace}/${type}`, versions.map((version) => version.version)))
  const verdicts = new Map(gate.data?.data.map((entry) => [entry.attributes.version, entry.attributes]))
  return versions.map((version) => {
    const verdict = verdicts.get(version.version)
    return (
      <tr key={`${provider.id}-${version.version}`}>
        <td>
          <AppLink to={{ page: 'mirrored-provider', hostname, namespace, type }}>
            <code>
              {hostname}/{namespace}/{type}
            </code>
          </AppLink>{' '}
          <span className="muted">updated {formatDate(provider.attributes['updated-at'])}</span>
        </td>
        <td>{version.version}</td>
        <td>
          {version.platforms.map((platform) =>
            version['unsigned-platforms'].includes(platform) ? (
              <span key={platform} className="badge warn" title="Imported without the publisher’s signature: Terraform installs it through the network mirror only">
                {platform} (unsigned)
              </span>
            ) : (
              <span key={platform} className="badge good">
                {platform}
              </span>
            )
          )}
        </td>
        <td>{version['key-ids'].length > 0 ? <code>{version['key-ids'].join(', ')}</code> : <span className="muted">none: imported, network mirror only</span>}</td>
        <td>{verdict ? <GateVerdict verdict={verdict} /> : <span className="muted">…</span>}</td>
        <td>
          <ConfirmButton
            label={`Remove ${version.version}`}
            confirm={`Remove ${hostname}/${namespace}/${type} ${version.version} and its files? Online, Terraform may pull it through again.`}
            busy={remove.isPending}
            onConfirm={() => remove.mutate({ hostname, namespace, type, version: version.version })}
          />
        </td>
      </tr>
    )
  })
}

/** Offered, or held and why (and until when, for a cooldown). */
function GateVerdict({ verdict }: { verdict: GateVersionAttributes }) {
  const { tone, words } = verdictBadge(verdict)
  return (
    <>
      <span className={`badge ${tone}`}>{words}</span>
      {(!verdict.offered || verdict.reported) && (
        <div className="muted small">
          {verdict.reason}
          {verdict.until && ` (until ${formatDateTime(verdict.until)})`}
        </div>
      )}
    </>
  )
}
