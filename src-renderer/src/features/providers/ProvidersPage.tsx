import { useState } from 'react'
import semver from 'semver'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { formatDate } from '../../lib/format'
import { useSession } from '../../lib/session'
import { ActionsHeader, ConfirmButton, Empty, ErrorMessage, Loading } from '../../lib/ui'
import { upload } from '../../lib/upload'
import {
  changeProviderDeprecation,
  createProviderPlatform,
  createProviderVersion,
  deleteProvider,
  deleteProviderVersion,
  findRelease,
  gpgKeysOptions,
  platformListOptions,
  providerKeys,
  providerListOptions,
  type ReleaseFiles,
  type VersionResource
} from './api'

/** An organization's private providers: publishing a release, and what each version holds. */
export function ProvidersPage({ org, canPublish, registryHostname }: { org: string; canPublish: boolean; registryHostname: string }) {
  const { client } = useSession()
  const providers = useQuery(providerListOptions(client, org))
  if (providers.isPending) return <Loading what="providers" />
  if (providers.isError) return <ErrorMessage error={providers.error} action="Could not list the providers" />
  const versions = new Map((providers.data.included ?? []).map((version) => [version.id, version]))
  return (
    <div className="stack">
      {canPublish && <PublishRelease org={org} />}
      {providers.data.data.length === 0 ? (
        <Empty title="No providers yet">
          <p>Publish a release folder (the zips, SHA256SUMS and its signature, as goreleaser writes them) to serve a provider to Terraform from here.</p>
        </Empty>
      ) : (
        providers.data.data.map((provider) => {
          const list = ((provider.relationships?.['registry-provider-versions'] as { data: Array<{ id: string }> } | undefined)?.data ?? [])
            .map(({ id }) => versions.get(id))
            .filter((version): version is VersionResource => version !== undefined)
            // Newest first, as module versions are listed.
            .sort((a, b) => semver.rcompare(a.attributes.version, b.attributes.version))
          return (
            <section key={provider.id} className="card padded stack-tight" aria-labelledby={`provider-${provider.id}`}>
              <header className="row">
                <h2 id={`provider-${provider.id}`}>{provider.attributes.name}</h2>
                <code className="muted">{`${registryHostname}/${org}/${provider.attributes.name}`.toLowerCase()}</code>
                {provider.attributes.permissions['can-delete'] && <DeleteProvider org={org} name={provider.attributes.name} />}
              </header>
              {list.length === 0 ? <p className="muted">No version yet.</p> : <VersionTable org={org} name={provider.attributes.name} versions={list} />}
            </section>
          )
        })
      )}
    </div>
  )
}

function VersionTable({ org, name, versions }: { org: string; name: string; versions: VersionResource[] }) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={`Versions of ${name}`}>
    <table className="table">
      <thead>
        <tr>
          <th scope="col">Version</th>
          <th scope="col">Signed by key</th>
          <th scope="col">SHA256SUMS and signature</th>
          <th scope="col">Platforms</th>
          <th scope="col">Status</th>
          <ActionsHeader />
        </tr>
      </thead>
      <tbody>
        {versions.map((version) => (
          <VersionRow key={version.id} org={org} name={name} version={version} />
        ))}
      </tbody>
    </table>
    </div>
  )
}

function VersionRow({ org, name, version }: { org: string; name: string; version: VersionResource }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const platforms = useQuery(platformListOptions(client, org, name, version.attributes.version))
  const remove = useMutation({
    mutationFn: () => deleteProviderVersion(client, org, name, version.attributes.version),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: providerKeys.all(org) })
  })
  const { attributes } = version
  const files = attributes['shasums-uploaded'] && attributes['shasums-sig-uploaded'] ? 'uploaded and checked' : attributes['shasums-uploaded'] ? 'signature missing' : 'missing'
  const offered = attributes['shasums-sig-uploaded'] && attributes['shasums-uploaded'] && platforms.data?.data.some((platform) => platform.attributes['provider-binary-uploaded']) === true
  return (
    <tr>
      <td>
        <strong>{attributes.version}</strong> <span className="muted">{formatDate(attributes['created-at'])}</span>
      </td>
      <td>
        <code>{attributes['key-id']}</code>
      </td>
      <td>{files}</td>
      <td>
        {platforms.data?.data.map((platform) => (
          <span key={platform.id} className={`badge ${platform.attributes['provider-binary-uploaded'] ? 'good' : 'neutral'}`} title={platform.attributes.filename}>
            {platform.attributes.os}_{platform.attributes.arch}
            {platform.attributes['provider-binary-uploaded'] ? '' : ' (no zip)'}
          </span>
        ))}
      </td>
      <td>
        {attributes.deprecation ? (
          <p>
            <span className="badge warn">Deprecated</span> {attributes.deprecation.reason}
            {attributes.deprecation.link && (
              <>
                {' '}
                <a href={attributes.deprecation.link} target="_blank" rel="noreferrer noopener">
                  More
                </a>
              </>
            )}
            <br />
            <span className="muted">
              By {attributes.deprecation['deprecated-by']} on {formatDate(attributes.deprecation['deprecated-at'])}. Terraform and OpenTofu print the reason at every init.
            </span>
          </p>
        ) : (
          <span className="muted">{offered ? 'Offered to Terraform' : 'Not offered until its files are in'}</span>
        )}
      </td>
      <td>
        <div className="stack-tight">
          {attributes.permissions['can-deprecate'] && offered && <Deprecation org={org} name={name} version={version} />}
          {attributes.permissions['can-delete'] && (
            <ConfirmButton label="Delete" subject={attributes.version} confirm={`Delete ${attributes.version} and its files?`} onConfirm={() => remove.mutate()} busy={remove.isPending} />
          )}
          {remove.isError && <ErrorMessage error={remove.error} />}
        </div>
      </td>
    </tr>
  )
}

/** Deprecating a version with a reason (and a link), or taking it back. */
function Deprecation({ org, name, version }: { org: string; name: string; version: VersionResource }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const [asking, setAsking] = useState(false)
  const [reason, setReason] = useState('')
  const [link, setLink] = useState('')
  const number = version.attributes.version
  const change = useMutation({
    mutationFn: (deprecation: Parameters<typeof changeProviderDeprecation>[4]) => changeProviderDeprecation(client, org, name, number, deprecation),
    onSuccess: async () => {
      setAsking(false)
      setReason('')
      setLink('')
      await queryClient.invalidateQueries({ queryKey: providerKeys.all(org) })
    }
  })
  const ids = `deprecate-${version.id}`
  return (
    <>
      {version.attributes.deprecation ? (
        <button type="button" disabled={change.isPending} onClick={() => change.mutate({ 'deprecated-status': 'Undeprecated' })}>
          Undeprecate {number}
        </button>
      ) : asking ? (
        <form
          className="stack-tight"
          aria-label={`Deprecate ${name} ${number}`}
          onSubmit={(event) => {
            event.preventDefault()
            change.mutate({ 'deprecated-status': 'Deprecated', reason, link: link.trim() || null })
          }}
        >
          <label htmlFor={`${ids}-reason`}>Why (Terraform prints it)</label>
          <textarea id={`${ids}-reason`} value={reason} required rows={2} onChange={(event) => setReason(event.target.value)} />
          <label htmlFor={`${ids}-link`}>Link (optional)</label>
          <input id={`${ids}-link`} type="url" value={link} placeholder="https://…" onChange={(event) => setLink(event.target.value)} />
          <div className="form-row">
            <button type="submit" className="primary" disabled={change.isPending}>
              Deprecate
            </button>
            <button type="button" onClick={() => setAsking(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <button type="button" onClick={() => setAsking(true)}>
          Deprecate {number}
        </button>
      )}
      <ErrorMessage error={change.error} action="Could not change it" />
    </>
  )
}

function DeleteProvider({ org, name }: { org: string; name: string }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const remove = useMutation({
    mutationFn: () => deleteProvider(client, org, name),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: providerKeys.all(org) })
  })
  return (
    <>
      <ConfirmButton label={`Delete ${name}`} confirm={`Delete ${name} with every version?`} onConfirm={() => remove.mutate()} busy={remove.isPending} />
      {remove.isError && <ErrorMessage error={remove.error} />}
    </>
  )
}

type Step = { label: string; state: 'waiting' | 'working' | 'done' | 'failed'; share?: number; error?: string }

/** Publishing a release from its files, with each step's progress and the server's reason when one is refused. */
function PublishRelease({ org }: { org: string }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const keys = useQuery(gpgKeysOptions(client, org))
  const [release, setRelease] = useState<ReleaseFiles | undefined>()
  const [problem, setProblem] = useState<string | undefined>()
  const [keyId, setKeyId] = useState('')
  const [steps, setSteps] = useState<Step[]>([])
  const [running, setRunning] = useState(false)
  const available = keys.data?.data ?? []
  const chosenKey = keyId || available[0]?.attributes['key-id'] || ''

  const pick = (files: FileList | null) => {
    setSteps([])
    try {
      setRelease(findRelease([...(files ?? [])]))
      setProblem(undefined)
    } catch (error) {
      setRelease(undefined)
      setProblem((error as Error).message)
    }
  }

  const publish = async () => {
    if (!release) return
    const labels = ['Provider and version', 'SHA256SUMS', 'Signature', ...release.zips.map((zip) => `${zip.os}_${zip.arch} zip`)]
    const progress: Step[] = labels.map((label) => ({ label, state: 'waiting' }))
    const set = (index: number, step: Partial<Step>) => {
      progress[index] = { ...progress[index]!, ...step }
      setSteps([...progress])
    }
    setSteps([...progress])
    setRunning(true)
    let index = 0
    try {
      set(index, { state: 'working' })
      const links = await createProviderVersion(client, org, release, chosenKey)
      set(index++, { state: 'done' })
      for (const [file, link] of [
        [release.shasums, links.shasums],
        [release.signature, links.signature]
      ] as const) {
        set(index, { state: 'working' })
        await upload(link, file, (share) => set(index, { share }))
        set(index++, { state: 'done' })
      }
      for (const zip of release.zips) {
        set(index, { state: 'working' })
        await upload(await createProviderPlatform(client, org, release, zip), zip.file, (share) => set(index, { share }))
        set(index++, { state: 'done' })
      }
    } catch (error) {
      set(index, { state: 'failed', error: (error as Error).message })
    } finally {
      setRunning(false)
      await queryClient.invalidateQueries({ queryKey: providerKeys.all(org) })
    }
  }

  return (
    <section className="card padded stack" aria-labelledby="publish-provider">
      <h2 id="publish-provider">Publish a provider release</h2>
      <label>
        Release files (the zips, SHA256SUMS and SHA256SUMS.sig)
        <input type="file" multiple onChange={(event) => pick(event.target.files)} />
      </label>
      {problem && <p role="alert">{problem}</p>}
      {release && (
        <>
          <p>
            <strong>
              terraform-provider-{release.type} {release.version}
            </strong>{' '}
            for {release.zips.map((zip) => `${zip.os}_${zip.arch}`).join(', ')}
          </p>
          {available.length === 0 ? (
            <p role="alert">Add the public key that signed SHA256SUMS under Settings → GPG keys first: Terraform checks the signature with it.</p>
          ) : (
            <label>
              Signed by
              <select value={chosenKey} onChange={(event) => setKeyId(event.target.value)}>
                {available.map((key) => (
                  <option key={key.id} value={key.attributes['key-id']}>
                    {key.attributes['key-id']}
                  </option>
                ))}
              </select>
            </label>
          )}
          <button type="button" className="primary fit" disabled={running || available.length === 0} onClick={() => void publish()}>
            Publish {release.type} {release.version}
          </button>
        </>
      )}
      {steps.length > 0 && (
        <ol aria-label="Publishing status" className="steps">
          {steps.map((step) => (
            <li key={step.label} data-state={step.state}>
              {step.label}: {step.state === 'working' && step.share !== undefined ? `${Math.round(step.share * 100)} %` : step.state}
              {step.error && <span role="alert"> — {step.error}</span>}
            </li>
          ))}
        </ol>
      )}
    </section>
  )
}
