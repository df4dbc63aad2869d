import { useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { navigate } from '../../lib/router'
import { ApiError } from '../../lib/api-client'
import { useSession } from '../../lib/session'
import { packTarGz } from '../../lib/tar'
import { upload } from '../../lib/upload'
import { ErrorMessage } from '../../lib/ui'
import { createVersionToUpload, type ModuleAddress } from '../modules/api'
import { createOrganization, organizationKeys } from './api'

/** The sample module's files (resources/sample-module), built into the GUI as text. */
const SOURCES = import.meta.glob<string>('../../../../resources/sample-module/**/*', { query: '?raw', import: 'default', eager: true })
const PREFIX = '../../../../resources/sample-module/'
const SAMPLE: ModuleAddress = { org: 'sample', registry: 'private', namespace: 'sample', name: 'labels', provider: 'null' }

/**
 * A first run's shortcut: an organization, a published module and its page in one click, through
 * the same public API as everything else, so a new user sees what Homeport does before bringing
 * a module of their own.
 */
export function SampleModule() {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const [step, setStep] = useState<string>()
  const [error, setError] = useState<Error>()

  const start = async () => {
    setError(undefined)
    try {
      setStep('Creating the organization “sample”…')
      await createOrganization(client, { name: SAMPLE.org, email: 'sample@homeport.localhost' }).catch((caught: unknown) => {
        // Made by an earlier try: use it.
        if (!(caught instanceof ApiError && caught.code === 'name-taken')) throw caught
      })
      setStep('Publishing sample/labels/null 1.0.0…')
      const created = await createVersionToUpload(client, SAMPLE, '1.0.0')
      const files = Object.entries(SOURCES).map(([path, text]) => ({ path: path.slice(PREFIX.length), file: new Blob([text]) }))
      await upload(created.upload, await packTarGz(files, () => undefined), () => undefined)
      await queryClient.invalidateQueries({ queryKey: organizationKeys.all })
      navigate({ page: 'module', ...SAMPLE, version: created.version })
    } catch (caught) {
      setError(caught as Error)
      setStep(undefined)
    }
  }

  return (
    <div className="stack-tight sample-module">
      <p className="muted">Or see Homeport at work first: it creates the organization “sample”, publishes a small module to it and opens its page.</p>
      <div>
        <button type="button" onClick={() => void start()} disabled={step !== undefined}>
          Try it with a sample module
        </button>
      </div>
      {step && <p role="status">{step}</p>}
      <ErrorMessage error={error ?? null} action="The sample could not be published" />
    </div>
  )
}
