import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { formatDate } from '../../lib/format'
import { useSession } from '../../lib/session'
import { PlatformChoice } from '../../lib/folder-drop'
import { ActionsHeader, ConfirmButton, Empty, ErrorMessage, Loading } from '../../lib/ui'
import { PUBLIC_REGISTRY_HOSTS, TERRAFORM_REGISTRY } from '@shared/terraform-config'
import { mirrorOptions, useMirrorProvider, useRemoveMirrored } from './api'

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
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {mirror.data.data.flatMap((provider) =>
                provider.attributes.versions.map((version) => (
                  <tr key={`${provider.id}-${version.version}`}>
                    <td>
                      <code>
                        {provider.attributes.hostname}/{provider.attributes.namespace}/{provider.attributes.type}
                      </code>{' '}
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
                    <td>
                      <ConfirmButton
                        label={`Remove ${version.version}`}
                        confirm={`Remove ${provider.attributes.hostname}/${provider.attributes.namespace}/${provider.attributes.type} ${version.version} and its files? Online, Terraform may pull it through again.`}
                        busy={remove.isPending}
                        onConfirm={() => remove.mutate({ hostname: provider.attributes.hostname, namespace: provider.attributes.namespace, type: provider.attributes.type, version: version.version })}
                      />
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      )}
    </div>
  )
}
