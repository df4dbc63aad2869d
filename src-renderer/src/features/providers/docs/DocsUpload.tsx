import { useId, useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import type { Document } from '@shared/wire/jsonapi'
import type { ProviderVersionAttributes } from '@shared/wire/providers'
import { FolderDrop } from '../../../lib/folder-drop'
import { useSession } from '../../../lib/session'
import { packTarGz, type TarFile } from '../../../lib/tar'
import { upload } from '../../../lib/upload'

/**
 * The docs files of a picked folder, relative to it: the repository (`docs/…` or `website/docs/…`
 * inside), or the docs folder itself. Only Markdown goes: images and templates are not docs.
 */
export function docsFiles(files: TarFile[]): TarFile[] {
  const folder = files[0]?.path.split('/')[0] ?? ''
  const inFolder = files.every((entry) => entry.path.startsWith(`${folder}/`))
  return files.map((entry) => ({ path: inFolder ? entry.path.slice(folder.length + 1) : entry.path, file: entry.file })).filter((entry) => /\.(md|markdown)$/.test(entry.path))
}

/** Sends a version's docs (docsFiles' Markdown, packed) through the upload link its version resource gives a publisher. */
export async function uploadDocs(client: ReturnType<typeof useSession>['client'], org: string, name: string, version: string, docs: TarFile[], onProgress: (share: number) => void): Promise<number> {
  if (docs.length === 0) throw new Error('The folder holds no Markdown: pick the provider repository, or its docs/ (or website/docs/) folder.')
  const path = `/organizations/${encodeURIComponent(org)}/registry-providers/private/${encodeURIComponent(org)}/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`
  const link = (await client.get<Document<ProviderVersionAttributes>>(path)).data.links?.['docs-upload']
  if (!link) throw new Error('Homeport gave no link for docs: only the organization’s publishers upload them.')
  await upload(link, await packTarGz(docs), onProgress)
  return docs.length
}

/** Uploading the docs of one of a private provider's versions, replacing any it had. */
export function DocsUpload({ org, name, versions }: { org: string; name: string; versions: string[] }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const [version, setVersion] = useState(versions[0] ?? '')
  const versionId = useId()
  const [status, setStatus] = useState<{ state: 'working' | 'done' | 'failed'; text: string } | undefined>()
  const send = async (files: TarFile[]) => {
    setStatus({ state: 'working', text: 'Uploading…' })
    try {
      const count = await uploadDocs(client, org, name, version, docsFiles(files), (share) => setStatus({ state: 'working', text: `Uploading… ${Math.round(share * 100)} %` }))
      await queryClient.invalidateQueries({ queryKey: ['provider-docs'] })
      setStatus({ state: 'done', text: `${version} now has the docs of ${count} files.` })
    } catch (error) {
      setStatus({ state: 'failed', text: (error as Error).message })
    }
  }
  return (
    <details className="stack-tight">
      <summary>Upload docs</summary>
      <div className="docs-version">
        <label htmlFor={versionId}>For version</label>
        <select id={versionId} value={version} onChange={(event) => setVersion(event.target.value)}>
          {versions.map((candidate) => (
            <option key={candidate}>{candidate}</option>
          ))}
        </select>
      </div>
      <FolderDrop
        prompt="Drop the provider repository, or its docs/ folder (as tfplugindocs writes it) or legacy website/docs/ folder: its pages replace the version’s docs."
        label="Docs folder"
        button="Choose the docs folder"
        onFiles={send}
      />
      {status && (
        <p role={status.state === 'failed' ? 'alert' : 'status'} data-state={status.state}>
          {status.text}
        </p>
      )}
    </details>
  )
}
