import { useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import semver from 'semver'
import { guessModule, selectModuleFiles, type FolderSelection } from '../../../lib/module-folder'
import { useSession } from '../../../lib/session'
import { packTarGz } from '../../../lib/tar'
import { upload } from '../../../lib/upload'
import { createVersionToUpload, moduleKeys, type ModuleAddress } from '../api'

/** Where a publish is: the form, then packaging, upload and ingest, or the reason it failed. */
export type Stage =
  | { step: 'idle' }
  | { step: 'packaging'; share: number }
  | { step: 'uploading'; share: number }
  | { step: 'ingesting'; address: ModuleAddress; version: string }
  | { step: 'failed'; message: string }

/**
 * The state of publishing a module without VCS, and what a person does to it: pick a folder or an
 * archive (the name and provider guessed from it), name the version (the next patch proposed until
 * one is chosen), publish, and start again for the next version.
 */
export function usePublish(org: string) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const [selection, setSelection] = useState<FolderSelection>()
  const [archive, setArchive] = useState<File>()
  const [name, setName] = useState('')
  const [provider, setProvider] = useState('')
  const [version, setVersion] = useState('1.0.0')
  /** Whether the version was chosen (typed, picked, or read from the archive's name) rather than proposed. */
  const [versionChosen, setVersionChosen] = useState(false)
  const [stage, setStage] = useState<Stage>({ step: 'idle' })

  const address: ModuleAddress = { org, registry: 'private', namespace: org, name, provider }
  /** From the click until the version is published or failed: the form gives way to the progress, which has the focus. */
  const underway = stage.step === 'packaging' || stage.step === 'uploading' || stage.step === 'ingesting'
  const ready = Boolean((selection?.included.length || archive) && name && provider && version && stage.step !== 'packaging' && stage.step !== 'uploading')

  const guess = (from: string) => {
    const guessed = guessModule(from)
    setName(guessed.name)
    setProvider(guessed.provider)
  }

  return {
    selection,
    archive,
    name,
    provider,
    version,
    versionChosen,
    stage,
    address,
    underway,
    ready,
    setName,
    setProvider,
    /** A module folder, dropped or chosen: its files, and the name and provider its folder's name suggests. */
    chooseFolder: async (files: Parameters<typeof selectModuleFiles>[0]) => {
      const selected = await selectModuleFiles(files)
      setSelection(selected)
      setArchive(undefined)
      setStage({ step: 'idle' })
      guess(selected.folder)
    },
    /** A packed module; `terraform-aws-vpc-5.1.2.tar.gz` also says which version it is. */
    chooseArchive: (file: File) => {
      setArchive(file)
      setSelection(undefined)
      guess(file.name.replace(/(-v?\d+\.\d+\.\d+.*)?\.(tar\.gz|tgz)$/, ''))
      const named = /-v?(\d+\.\d+\.\d+[^/]*?)\.(tar\.gz|tgz)$/.exec(file.name)?.[1]
      if (named && semver.valid(named)) {
        setVersion(named)
        setVersionChosen(true)
      }
    },
    /** A version typed or picked (`chosen`), or proposed (the next patch), which a later choice replaces. */
    pickVersion: (picked: string, chosen = true) => {
      setVersion(picked)
      if (chosen) setVersionChosen(true)
    },
    /** The archive that would be published: the one chosen, or the folder packed. */
    packed: (): Promise<Blob> | Blob => archive ?? packTarGz(selection!.included, () => undefined),
    publish: async () => {
      try {
        const created = await createVersionToUpload(client, address, version)
        let body: Blob
        if (archive) body = archive
        else {
          setStage({ step: 'packaging', share: 0 })
          body = await packTarGz(selection!.included, (share) => setStage({ step: 'packaging', share }))
        }
        setStage({ step: 'uploading', share: 0 })
        await upload(created.upload, body, (share) => setStage({ step: 'uploading', share }))
        await queryClient.invalidateQueries({ queryKey: moduleKeys.all(org) })
        setStage({ step: 'ingesting', address: { ...address }, version: created.version })
      } catch (error) {
        setStage({ step: 'failed', message: (error as Error).message })
      }
    },
    /** Back to the form for the next version of the same folder (the next patch proposed again). */
    another: () => {
      setStage({ step: 'idle' })
      setVersionChosen(false)
    }
  }
}
