import { useState, type ReactNode } from 'react'
import { filesFromDrop, filesFromInput } from './module-folder'
import type { TarFile } from './tar'

/** A place to drop files on, highlighted while something is dragged over it; what is dropped goes to `onDrop`. */
function DropZone({ prompt, className = '', onDrop, children }: { prompt: string; className?: string; onDrop: (transfer: DataTransfer) => void; children: ReactNode }) {
  const [dragging, setDragging] = useState(false)
  return (
    <div
      className={`dropzone ${className} ${dragging ? 'dragging' : ''}`}
      onDragOver={(event) => {
        event.preventDefault()
        setDragging(true)
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault()
        setDragging(false)
        onDrop(event.dataTransfer)
      }}
    >
      <p>{prompt}</p>
      {children}
    </div>
  )
}

/**
 * A place to drop a folder, with a button that picks one (`<input webkitdirectory>`, which browsers
 * and Electron both offer): the folder's files, walked through, go to `onFiles`.
 */
export function FolderDrop({ prompt, label, button, primary = false, className = '', onFiles, children }: {
  prompt: string
  /** The accessible name of the folder input. */
  label: string
  button: string
  primary?: boolean
  className?: string
  onFiles: (files: TarFile[]) => void | Promise<void>
  /** More choices or a status, inside the zone. */
  children?: ReactNode
}) {
  return (
    <DropZone prompt={prompt} className={className} onDrop={(transfer) => void filesFromDrop(transfer).then(onFiles)}>
      <label className={`button ${primary ? 'primary' : ''}`}>
        {button}
        <input
          type="file"
          className="visually-hidden"
          aria-label={label}
          // @ts-expect-error: webkitdirectory is how browsers and Electron pick a folder; React does not type it.
          webkitdirectory=""
          multiple
          onChange={(event) => {
            if (event.target.files?.length) void onFiles(filesFromInput(event.target.files))
          }}
        />
      </label>
      {children}
    </DropZone>
  )
}

/** A place to drop files (not a folder), with a button that picks several: they go to `onFiles` as they are. */
export function FilesDrop({ prompt, label, button, onFiles }: { prompt: string; label: string; button: string; onFiles: (files: File[]) => void }) {
  return (
    <DropZone prompt={prompt} onDrop={(transfer) => onFiles([...transfer.files])}>
      <label className="button">
        {button}
        <input type="file" className="visually-hidden" aria-label={label} multiple onChange={(event) => onFiles([...(event.target.files ?? [])])} />
      </label>
    </DropZone>
  )
}

/** The platforms offered for provider packages, most used first. */
const PLATFORMS = ['linux_amd64', 'linux_arm64', 'darwin_amd64', 'darwin_arm64', 'windows_amd64']

/** Checkboxes for the platforms (`linux_amd64`) whose provider packages to fetch. */
export function PlatformChoice({ legend, value, onChange }: { legend: string; value: string[]; onChange: (platforms: string[]) => void }) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {PLATFORMS.map((platform) => (
        <label key={platform} className="inline">
          <input type="checkbox" checked={value.includes(platform)} onChange={(event) => onChange(event.target.checked ? [...value, platform] : value.filter((candidate) => candidate !== platform))} />{' '}
          {platform}
        </label>
      ))}
    </fieldset>
  )
}
