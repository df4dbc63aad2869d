import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { navigate } from '../../lib/router'
import { useSession } from '../../lib/session'
import { ConfirmButton, ErrorMessage, Loading } from '../../lib/ui'
import { connectionOf, connectionsOptions, repositoriesOptions, useCreateConnection, useDeleteConnection, usePublishFromGit, type Connection } from './api'
import { AppLink } from '../../lib/link'

/** Git connections, and publishing a module from a repository under one. */
export function VcsPage({ org }: { org: string }) {
  const { client } = useSession()
  const connections = useQuery(connectionsOptions(client, org))
  const [baseUrl, setBaseUrl] = useState('')
  const create = useCreateConnection(client, org)
  const remove = useDeleteConnection(client, org)

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
            create.mutate(baseUrl.trim(), { onSuccess: () => setBaseUrl('') })
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
        <PublishFromGit org={org} connections={connections.data.data.map(connectionOf)} />
      )}
    </section>
  )
}

function PublishFromGit({ org, connections }: { org: string; connections: Connection[] }) {
  const { client } = useSession()
  const [connectionId, setConnectionId] = useState(connections[0]!.id)
  const connection = connections.find((candidate) => candidate.id === connectionId) ?? connections[0]!
  const repositories = useQuery(repositoriesOptions(client, org, connection.id))
  const [identifier, setIdentifier] = useState('')
  const [branch, setBranch] = useState('')
  const [sourceDirectory, setSourceDirectory] = useState('')
  const [tagPrefix, setTagPrefix] = useState('')
  const [name, setName] = useState('')
  const [provider, setProvider] = useState('')
  const publish = usePublishFromGit(client, org)
  // A folder's repositories are picked from a list; a remote's (which git cannot list) are typed.
  const listed = repositories.data?.listable ? repositories.data.identifiers : undefined

  return (
    <form
      className="card form"
      aria-label="Publish from git"
      onSubmit={(event) => {
        event.preventDefault()
        publish.mutate(
          { token: connection.token, identifier: identifier.trim(), name, provider, branch, sourceDirectory, tagPrefix },
          {
            onSuccess: (document) => {
              const { attributes } = document.data
              navigate({ page: 'module', org, registry: 'private', namespace: attributes.namespace, name: attributes.name, provider: attributes.provider })
            }
          }
        )
      }}
    >
      <h2>Publish from a repository</h2>
      <p className="muted">
        Every tag that is a version (<code>v1.2.0</code> or <code>1.2.0</code>) becomes one, and new tags are picked up by themselves. With a branch,
        versions are created from its commits instead. See <AppLink to={{ page: 'terraform' }}>Connect Terraform</AppLink> to use them.
      </p>
      <div className="form-row">
        <div className="field">
          <label htmlFor="vcs-connection">Connection</label>
          <select
            id="vcs-connection"
            value={connection.id}
            onChange={(event) => {
              setConnectionId(event.target.value)
              setIdentifier('')
            }}
          >
            {connections.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field grow">
          <label htmlFor="vcs-identifier">Repository</label>
          {listed ? (
            <>
              <select
                id="vcs-identifier"
                value={identifier}
                required
                aria-describedby={listed.length === 0 ? 'vcs-identifier-none' : undefined}
                onChange={(event) => setIdentifier(event.target.value)}
              >
                <option value="">{listed.length === 0 ? 'No repository in this folder' : `Choose one of ${listed.length}…`}</option>
                {listed.map((candidate) => (
                  <option key={candidate}>{candidate}</option>
                ))}
              </select>
              {listed.length === 0 && (
                <p className="hint" id="vcs-identifier-none">
                  Homeport lists git repositories the folder holds (<code>folder/terraform-aws-vpc</code>) or that its folders hold (
                  <code>folder/platform/terraform-aws-vpc</code>): working copies with <code>.git</code>, or bare <code>*.git</code>.
                </p>
              )}
            </>
          ) : (
            <input id="vcs-identifier" value={identifier} required placeholder="platform/terraform-aws-network" onChange={(event) => setIdentifier(event.target.value)} />
          )}
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
