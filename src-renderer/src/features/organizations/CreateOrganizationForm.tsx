import { useState } from 'react'
import { navigate } from '../../lib/router'
import { useSession } from '../../lib/session'
import { ApiError } from '../../lib/api-client'
import { useCreateOrganization } from './api'
import { NAME_PATTERN, patternProps } from '../../lib/name-pattern'

export function CreateOrganizationForm({ onDone }: { onDone: () => void }) {
  const { client } = useSession()
  const create = useCreateOrganization(client)
  const [name, setName] = useState('')
  const [email, setEmail] = useState('')
  const error = create.error instanceof ApiError ? create.error : undefined

  return (
    <form
      className="card form"
      aria-label="New organization"
      onSubmit={(event) => {
        event.preventDefault()
        create.mutate(
          { name: name.trim(), email: email.trim() },
          {
            onSuccess: (document) => {
              onDone()
              // A new organization is empty: its page says how to fill it.
              navigate({ page: 'organization', org: document.data.id, tab: 'modules' })
            }
          }
        )
      }}
    >
      <div className="field">
        <label htmlFor="org-name">Name</label>
        <input
          id="org-name"
          value={name}
          autoFocus
          required
          {...patternProps(NAME_PATTERN, 'a name is letters, digits, “-” and “_” only.')}
          aria-describedby="org-name-hint"
          maxLength={64}
          onChange={(event) => setName(event.target.value)}
          aria-invalid={error?.pointer === '/data/attributes/name'}
        />
        <p className="hint" id="org-name-hint">Letters, digits, “-” and “_”. It becomes the namespace of the organization’s private modules.</p>
      </div>
      <div className="field">
        <label htmlFor="org-email">Admin e-mail</label>
        <input
          id="org-email"
          type="email"
          value={email}
          required
          onChange={(event) => setEmail(event.target.value)}
          aria-invalid={error?.pointer === '/data/attributes/email'}
        />
      </div>
      {create.error && (
        <p role="alert" className="error">
          {create.error.message}
        </p>
      )}
      <div className="actions">
        <button type="button" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create organization'}
        </button>
      </div>
    </form>
  )
}
