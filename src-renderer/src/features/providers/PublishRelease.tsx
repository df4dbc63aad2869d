import { useState } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { AppLink } from '../../lib/link'
import { FilesDrop, FolderDrop } from '../../lib/folder-drop'
import type { TarFile } from '../../lib/tar'
import { docsFiles, uploadDocs } from './docs/DocsUpload'
import { useSession } from '../../lib/session'
import { upload } from '../../lib/upload'
import { createProviderPlatform, createProviderVersion, deleteProviderVersion, findRelease, gpgKeysOptions, providerKeys, type ReleaseFiles } from './api'

type Step = { label: string; state: 'waiting' | 'working' | 'done' | 'failed' | 'not done'; share?: number; error?: string }

/** Publishing a release from its files, with each step's progress and the server's reason when one is refused. */
export function PublishRelease({ org }: { org: string }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const keys = useQuery(gpgKeysOptions(client, org))
  const [release, setRelease] = useState<ReleaseFiles | undefined>()
  const [problem, setProblem] = useState<string | undefined>()
  const [keyId, setKeyId] = useState('')
  const [steps, setSteps] = useState<Step[]>([])
  const [running, setRunning] = useState(false)
  const [docs, setDocs] = useState<TarFile[]>([])
  /** The release just published: said, with a link to it, and not offered again (a second press only met "already exists"). */
  const [published, setPublished] = useState<ReleaseFiles>()
  const available = keys.data?.data ?? []
  const chosenKey = keyId || available[0]?.attributes['key-id'] || ''

  const pick = (files: File[]) => {
    setSteps([])
    setPublished(undefined)
    try {
      setRelease(findRelease(files))
      setProblem(undefined)
    } catch (error) {
      setRelease(undefined)
      setProblem((error as Error).message)
    }
  }

  const publish = async () => {
    if (!release) return
    const labels = ['Provider and version', 'SHA256SUMS', 'Signature', ...release.zips.map((zip) => `${zip.os}_${zip.arch} zip`), ...(docs.length > 0 ? ['Docs'] : [])]
    const progress: Step[] = labels.map((label) => ({ label, state: 'waiting' }))
    const set = (index: number, step: Partial<Step>) => {
      progress[index] = { ...progress[index]!, ...step }
      setSteps([...progress])
    }
    setSteps([...progress])
    setRunning(true)
    let index = 0
    let created = false
    try {
      set(index, { state: 'working' })
      const links = await createProviderVersion(client, org, release, chosenKey)
      created = true
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
      if (docs.length > 0) {
        set(index, { state: 'working' })
        await uploadDocs(client, org, release.type, release.version, docs, (share) => set(index, { share }))
        set(index++, { state: 'done' })
      }
      setPublished(release)
    } catch (error) {
      // A version whose signature or a zip was refused is taken back, not left half-made: the release is published whole or not at all.
      const undone = created && (await deleteProviderVersion(client, org, release.type, release.version).then(() => true, () => false))
      set(index, { state: 'failed', error: `${(error as Error).message}${undone ? ` Nothing of ${release.version} was kept: publish it again once fixed.` : ''}` })
      // The steps after a failure never run: said so, not left "waiting".
      for (let later = index + 1; later < progress.length; later++) set(later, { state: 'not done' })
    } finally {
      setRunning(false)
      await queryClient.invalidateQueries({ queryKey: providerKeys.all(org) })
    }
  }

  return (
    <section className="card padded stack" aria-labelledby="publish-provider">
      <h2 id="publish-provider">Publish a provider release</h2>
      <FilesDrop
        prompt="Drop a release’s files here: the zips, SHA256SUMS and SHA256SUMS.sig (and the manifest, if there is one), as goreleaser writes them."
        label="Release files (the zips, SHA256SUMS and SHA256SUMS.sig)"
        button="Choose the files"
        onFiles={pick}
      />
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
            <p role="alert">
              Add the public key that signed SHA256SUMS under <AppLink to={{ page: 'organization', org, tab: 'settings' }}>Settings → GPG keys</AppLink> first: Terraform checks the signature with it.
            </p>
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
          <FolderDrop
            prompt="Its documentation, if you have it: drop the provider repository, or its docs/ (or legacy website/docs/) folder."
            label="Docs folder (optional)"
            button="Choose the docs folder"
            onFiles={(files) => setDocs(docsFiles(files))}
          >
            {docs.length > 0 && <p>{docs.length} docs pages will be published with it.</p>}
          </FolderDrop>
          {published === release ? (
            <p role="status">
              Published {release.type} {release.version}.{' '}
              <AppLink to={{ page: 'provider', org, name: release.type, query: `version=${encodeURIComponent(release.version)}` }}>
                See {org}/{release.type} {release.version}
              </AppLink>
            </p>
          ) : (
            <button type="button" className="primary fit" disabled={running || available.length === 0} onClick={() => void publish()}>
              Publish {release.type} {release.version}
            </button>
          )}
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
