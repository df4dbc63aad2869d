import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { formatBytes } from '../../lib/format'
import { useSession } from '../../lib/session'
import { ErrorMessage, Loading } from '../../lib/ui'
import { HighlightedCode } from '../../lib/highlight'
import { saveFile } from '../../lib/save-file'
import { fileOptions, filesOptions, modulePath, type ModuleAddress } from './api'

/**
 * A published version's files as its archive holds them, read-only: the list (the part shown's files
 * first), and the file chosen, as text with its line numbers. The part's main file is shown to begin
 * with; the one chosen is in the address (`file`), so a file of a version is a link.
 */
export function VersionFiles({ address, version, part, chosen, setChosen }: { address: ModuleAddress; version: string; part: string; chosen: string; setChosen: (path: string) => void }) {
  const { client } = useSession()
  const files = useQuery(filesOptions(client, address, version))
  if (files.isPending) return <Loading what="the files" />
  if (files.isError) return <ErrorMessage error={files.error} action="Could not list the files" />
  const inPart = (path: string) => part === '' || path.startsWith(`${part}/`)
  const listed = files.data.data.map((file) => file.attributes).sort((a, b) => Number(inPart(b.path)) - Number(inPart(a.path)) || a.path.localeCompare(b.path))
  const prefix = part ? `${part}/` : ''
  const shown = (chosen && listed.some((file) => file.path === chosen) ? chosen : undefined) ?? listed.find((file) => file.path === `${prefix}main.tf`)?.path ?? listed.find((file) => inPart(file.path))?.path ?? listed[0]?.path
  return (
    <div className="version-files">
      <div className="stack-tight">
        <DownloadArchive address={address} version={version} />
        <ul className="plain file-list" aria-label={`Files of ${version}`}>
          {listed.map((file) => (
            <li key={file.path}>
              <button type="button" className="link" aria-current={file.path === shown ? 'true' : undefined} onClick={() => setChosen(file.path)}>
                <PathText path={file.path} />
              </button>{' '}
              <span className="muted">{formatBytes(file.size)}</span>
            </li>
          ))}
        </ul>
      </div>
      {shown && <FileText address={address} version={version} path={shown} />}
    </div>
  )
}

/** The version's archive as it was published, saved under its name (`network-aws-1.2.0.tar.gz`). */
function DownloadArchive({ address, version }: { address: ModuleAddress; version: string }) {
  const { client } = useSession()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<Error | null>(null)
  return (
    <div>
      <button
        type="button"
        disabled={busy}
        onClick={() => {
          setBusy(true)
          setError(null)
          client
            .download(`${modulePath(address)}/${encodeURIComponent(version)}/archive`)
            .then(({ blob, filename }) => saveFile(blob, filename), setError)
            .finally(() => setBusy(false))
        }}
      >
        {busy ? 'Downloading…' : `Download ${version} (.tar.gz)`}
      </button>
      <ErrorMessage error={error} action="Could not download it" />
    </div>
  )
}

function FileText({ address, version, path }: { address: ModuleAddress; version: string; path: string }) {
  const { client } = useSession()
  const file = useQuery(fileOptions(client, address, version, path))
  return (
    <section className="stack-tight file-text" aria-label={path}>
      <h3>
        <code>{path}</code>
      </h3>
      {file.isPending && <Loading what={path} />}
      <ErrorMessage error={file.error} action={`Could not show ${path}`} />
      {file.data && <NumberedText path={path} text={file.data.data.attributes.text ?? ''} />}
    </section>
  )
}

/** A path that breaks after its slashes only, never inside a folder's or a file's name. */
function PathText({ path }: { path: string }) {
  const segments = path.split('/')
  return (
    <>
      {segments.map((segment, index) => (
        <span key={index}>
          {segment}
          {index < segments.length - 1 && (
            <>
              /<wbr />
            </>
          )}
        </span>
      ))}
    </>
  )
}

/**
 * A file's text as written, its lines never wrapped (an aligned `=` stays aligned; a long line scrolls
 * sideways), each numbered in a gutter that scrolls with it and that copying leaves out.
 */
function NumberedText({ path, text }: { path: string; text: string }) {
  const lines = text.replace(/\n$/, '').split('\n').length
  return (
    <pre className="numbered" tabIndex={0} aria-label={`The text of ${path}`}>
      <span className="gutter" aria-hidden="true">
        {Array.from({ length: lines }, (_, index) => index + 1).join('\n')}
      </span>
      <HighlightedCode path={path} text={text} />
    </pre>
  )
}
