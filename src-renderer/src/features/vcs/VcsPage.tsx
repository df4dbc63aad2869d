import { useState } from 'react'
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { hrefOf, navigate } from '../../app/router'
import type { ApiClient } from '../../lib/api-client'
import type { Document, ListDocument } from '../../lib/jsonapi'
import { useSession } from '../../lib/session'
import { ConfirmButton, ErrorMessage, Loading } from '../../lib/ui'
import { moduleKeys, type ModuleAttributes } from '../modules/api'

interface ConnectionAttributes {
  name: string
  'http-url': string
  'created-at': string
}

const connectionKeys = { list: (org: string) => ['oauth-clients', org] as const }

function connectionsOptions(client: ApiClient, org: string) {
  return queryOptions({
    queryKey: connectionKeys.list(org),
    queryFn: () => client.get<ListDocument<ConnectionAttributes>>(`/organizations/${encodeURIComponent(org)}/oauth-clients`)
  })
}

const tokenOf = (connection: ListDocument<ConnectionAttributes>['data'][number]) =>
  (connection.relationships?.['oauth-tokens'] as { data: Array<{ id: string }> }).data[0]!.id

/** Git connections, and publishing a module from a repository under one. */
export function VcsPage({ org }: { org: string }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const connections = useQuery(connectionsOptions(client, org))
  const [baseUrl, setBaseUrl] = useState('')
  const create = useMutation({
    mutationFn: () =>
      client.request('POST', `/organizations/${encodeURIComponent(org)}/oauth-clients`, {
        data: { type: 'oauth-clients', attributes: { 'service-provider': 'git', 'http-url': baseUrl.trim() } }
      }),
    onSuccess: () => {
      setBaseUrl('')
      return queryClient.invalidateQueries({ queryKey: connectionKeys.list(org) })
    }
  })

  const remove = useMutation({
    mutationFn: (id: string) => client.request<void>('DELETE', `/oauth-clients/${encodeURIComponent(id)}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: connectionKeys.list(org) })
  })

  return (
    <section className="stack" aria-label="Git">
      <div className="card padded stack-tight">
        <h2>Git connections</h2>
        <p className="muted">
          A folder of repositories on this machine, or a base git URL (<code>ssh://</code>, <code>https://</code>) reachable with your own git
          credentials.
        </p>
        {connections.isPending && <Loading what="connections" />}
        <ErrorMessage error={connections.error} />
        {connections.data && connections.data.data.length > 0 && (
          <ul className="plain-list" aria-label="Git connections">
            {connections.data.data.map((connection) => (
              <li key={connection.id} className="version-line">
                <strong>{connection.attributes.name}</strong> <code>{connection.attributes['http-url']}</code>
                <ConfirmButton
                  label="Delete"
                  confirm={`Delete the connection ${connection.attributes.name}? (Refused while modules publish through it.)`}
                  busy={remove.isPending}
                  onConfirm={() => remove.mutate(connection.id)}
                />
              </li>
            ))}
          </ul>
        )}
        <form
          className="form-row"
          aria-label="New git connection"
          onSubmit={(event) => {
            event.preventDefault()
            create.mutate()
          }}
        >
          <div className="field grow">
            <label htmlFor="connection-url">Folder or base URL</label>
            <input id="connection-url" value={baseUrl} required placeholder="/home/me/src" onChange={(event) => setBaseUrl(event.target.value)} />
          </div>
          <button type="submit" disabled={create.isPending}>
            Add connection
          </button>
        </form>
        <ErrorMessage error={create.error ?? remove.error} />
      </div>
      {connections.data && connections.data.data.length > 0 && (
        <PublishFromGit org={org} connections={connections.data.data.map((connection) => ({ name: connection.attributes.name, token: tokenOf(connection) }))} />
      )}
    </section>
  )
}

function PublishFromGit({ org, connections }: { org: string; connections: Array<{ name: string; token: string }> }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const [token, setToken] = useState(connections[0]!.token)
  const [identifier, setIdentifier] = useState('')
  const [branch, setBranch] = useState('')
  const [sourceDirectory, setSourceDirectory] = useState('')
  const [tagPrefix, setTagPrefix] = useState('')
  const [name, setName] = useState('')
  const [provider, setProvider] = useState('')
  const publish = useMutation({
    mutationFn: () =>
      client.request<Document<ModuleAttributes>>('POST', `/organizations/${encodeURIComponent(org)}/registry-modules/vcs`, {
        data: {
          type: 'registry-modules',
          attributes: {
            ...(name ? { name } : {}),
            ...(provider ? { provider } : {}),
            'vcs-repo': {
              identifier: identifier.trim(),
              'oauth-token-id': token,
              'display-identifier': identifier.trim(),
              ...(branch ? { branch } : {}),
              ...(sourceDirectory ? { 'source-directory': sourceDirectory } : {}),
              ...(tagPrefix ? { 'tag-prefix': tagPrefix } : {})
            }
          }
        }
      }),
    onSuccess: async (document) => {
      await queryClient.invalidateQueries({ queryKey: moduleKeys.all(org) })
      const { attributes } = document.data
      navigate({ page: 'module', org, registry: 'private', namespace: attributes.namespace, name: attributes.name, provider: attributes.provider })
    }
  })

  return (
    <form
      className="card form"
      aria-label="Publish from git"
      onSubmit={(event) => {
        event.preventDefault()
        publish.mutate()
      }}
    >
      <h2>Publish from a repository</h2>
      <p className="muted">
        Every tag that is a version (<code>v1.2.0</code> or <code>1.2.0</code>) becomes one, and new tags are picked up by themselves. With a branch,
        versions are created from its commits instead. See <a href={hrefOf({ page: 'terraform' })}>Connect Terraform</a> to use them.
      </p>
      <div className="form-row">
        <div className="field">
          <label htmlFor="vcs-connection">Connection</label>
          <select id="vcs-connection" value={token} onChange={(event) => setToken(event.target.value)}>
            {connections.map((connection) => (
              <option key={connection.token} value={connection.token}>
                {connection.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field grow">
          <label htmlFor="vcs-identifier">Repository</label>
          <input
            id="vcs-identifier"
            value={identifier}
            required
            placeholder="platform/terraform-aws-network"
            onChange={(event) => setIdentifier(event.target.value)}
          />
        </div>
      </div>
      <details>
        <summary>Name, branch, monorepo folder</summary>
        <div className="form-row">
          <div className="field">
            <label htmlFor="vcs-name">Module name</label>
            <input id="vcs-name" value={name} placeholder="from terraform-<provider>-<name>" onChange={(event) => setName(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="vcs-provider">Provider</label>
            <input id="vcs-provider" value={provider} onChange={(event) => setProvider(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="vcs-branch">Branch (empty: tags)</label>
            <input id="vcs-branch" value={branch} onChange={(event) => setBranch(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="vcs-folder">Folder</label>
            <input id="vcs-folder" value={sourceDirectory} placeholder="modules/network" onChange={(event) => setSourceDirectory(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="vcs-prefix">Tag prefix</label>
            <input id="vcs-prefix" value={tagPrefix} placeholder="network/" onChange={(event) => setTagPrefix(event.target.value)} />
          </div>
        </div>
      </details>
      <ErrorMessage error={publish.error} action="Not published" />
      <div className="actions">
        <button type="submit" className="primary" disabled={publish.isPending}>
          {publish.isPending ? 'Reading the repository…' : 'Publish'}
        </button>
      </div>
    </form>
  )
}
