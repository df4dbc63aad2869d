import type { ReactNode } from 'react'
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { navigate } from '../../app/router'
import { ApiError } from '../../lib/api-client'
import type { Resource } from '../../lib/jsonapi'
import { useSession } from '../../lib/session'
import { ConfirmButton, ErrorMessage } from '../../lib/ui'
import { entitlementOptions, useDeleteOrganization, useUpdateOrganization, type OrganizationAttributes } from './api'

type Field =
  | { key: string; label: string; kind: 'text' | 'email' | 'number' | 'boolean'; hint?: string }
  | { key: string; label: string; kind: 'choice'; options: string[]; hint?: string }

/** Every attribute of endpoint 12, as a form. */
const FIELDS: Field[] = [
  { key: 'name', label: 'Name', kind: 'text', hint: 'Renaming changes the namespace of its private modules.' },
  { key: 'email', label: 'Admin e-mail', kind: 'email' },
  { key: 'session-timeout', label: 'Session timeout (minutes)', kind: 'number' },
  { key: 'session-remember', label: 'Session expiration (minutes)', kind: 'number' },
  { key: 'collaborator-auth-policy', label: 'Authentication policy', kind: 'choice', options: ['password', 'two_factor_mandatory'] },
  { key: 'default-execution-mode', label: 'Default execution mode', kind: 'choice', options: ['remote', 'local', 'agent'] },
  { key: 'default-agent-pool-id', label: 'Default agent pool', kind: 'text', hint: 'Only with agent execution.' },
  { key: 'owners-team-saml-role-id', label: 'Owners team SAML role', kind: 'text' },
  { key: 'cost-estimation-enabled', label: 'Cost estimation', kind: 'boolean' },
  { key: 'send-passing-statuses-for-untriggered-speculative-plans', label: 'Passing statuses for untriggered speculative plans', kind: 'boolean' },
  { key: 'aggregated-commit-status-enabled', label: 'Aggregated commit statuses', kind: 'boolean' },
  { key: 'speculative-plan-management-enabled', label: 'Cancel plan-only runs automatically', kind: 'boolean' },
  { key: 'allow-force-delete-workspaces', label: 'Allow force-deleting workspaces', kind: 'boolean' },
  { key: 'assessments-enforced', label: 'Enforce health assessments', kind: 'boolean' }
]

/** The organization's settings, its entitlements, and deleting it. */
/** The organization's settings; `children` (the GPG keys) come before the danger zone. */
export function OrganizationSettings({ organization, children }: { organization: Resource<OrganizationAttributes>; children?: ReactNode }) {
  const { client } = useSession()
  const name = organization.id
  const attributes = organization.attributes as unknown as Record<string, unknown>
  const pool = (organization.relationships?.['default-agent-pool'] as { data: { id: string } | null } | undefined)?.data?.id ?? ''
  const initial: Record<string, unknown> = { ...attributes, 'default-agent-pool-id': pool }
  const [values, setValues] = useState<Record<string, unknown>>(initial)
  const update = useUpdateOrganization(client, name)
  const remove = useDeleteOrganization(client, name)
  const canUpdate = organization.attributes.permissions['can-update'] === true
  const fields = FIELDS.filter((field) => field.key in initial)

  const changed = () => {
    const patch: Record<string, unknown> = {}
    for (const field of fields) {
      if (values[field.key] === initial[field.key]) continue
      patch[field.key] = field.key === 'default-agent-pool-id' && values[field.key] === '' ? null : values[field.key]
    }
    return patch
  }
  const error = update.error instanceof ApiError ? update.error : undefined

  return (
    <section className="stack" aria-label="Settings">
      <form
        className="card form"
        aria-label="Organization settings"
        onSubmit={(event) => {
          event.preventDefault()
          update.mutate(changed(), {
            onSuccess: (document) => {
              if (document.data.id !== name) navigate({ page: 'organization', org: document.data.id, tab: 'settings' })
            }
          })
        }}
      >
        <fieldset disabled={!canUpdate} className="settings-grid">
          {fields.map((field) => {
            const id = `setting-${field.key}`
            const invalid = error?.pointer === `/data/attributes/${field.key}`
            return (
              <div key={field.key} className={field.kind === 'boolean' ? 'field checkbox' : 'field'}>
                {field.kind === 'boolean' ? (
                  <label htmlFor={id} className="inline">
                    <input
                      id={id}
                      type="checkbox"
                      checked={values[field.key] === true}
                      onChange={(event) => setValues({ ...values, [field.key]: event.target.checked })}
                    />
                    {field.label}
                  </label>
                ) : (
                  <>
                    <label htmlFor={id}>{field.label}</label>
                    {field.kind === 'choice' ? (
                      <select id={id} value={String(values[field.key])} onChange={(event) => setValues({ ...values, [field.key]: event.target.value })}>
                        {field.options.map((option) => (
                          <option key={option}>{option}</option>
                        ))}
                      </select>
                    ) : (
                      <input
                        id={id}
                        type={field.kind}
                        aria-invalid={invalid}
                        value={values[field.key] === null || values[field.key] === undefined ? '' : String(values[field.key])}
                        onChange={(event) =>
                          setValues({
                            ...values,
                            [field.key]: field.kind === 'number' ? (event.target.value === '' ? null : Number(event.target.value)) : event.target.value
                          })
                        }
                      />
                    )}
                  </>
                )}
                {field.hint && <p className="hint">{field.hint}</p>}
              </div>
            )
          })}
        </fieldset>
        <ErrorMessage error={update.error} action="Not saved" />
        {update.isSuccess && <p role="status">Saved.</p>}
        {canUpdate && (
          <div className="actions">
            <button type="submit" className="primary" disabled={update.isPending || Object.keys(changed()).length === 0}>
              Save changes
            </button>
          </div>
        )}
      </form>

      <Entitlements org={name} />

      {children}

      {organization.attributes.permissions['can-destroy'] && (
        <div className="card padded danger-zone">
          <h2>Delete this organization</h2>
          <p className="muted">Its modules, versions, archives, teams and tokens go with it. This cannot be undone.</p>
          <ConfirmButton
            label="Delete organization"
            confirm={`Delete ${name} and everything in it?`}
            busy={remove.isPending}
            onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate({ page: 'organizations' }) })}
          />
          <ErrorMessage error={remove.error} />
        </div>
      )}
    </section>
  )
}

function Entitlements({ org }: { org: string }) {
  const { client } = useSession()
  const set = useQuery(entitlementOptions(client, org))
  if (!set.data) return <ErrorMessage error={set.error} />
  const entries = Object.entries(set.data.data.attributes)
  return (
    <div className="card padded">
      <h2>Entitlements</h2>
      <ul className="entitlements">
        {entries
          .filter(([, value]) => typeof value === 'boolean')
          .map(([key, value]) => (
            <li key={key} className={value ? 'on' : 'off'}>
              <span aria-hidden="true">{value ? '✓' : '–'}</span> {key.replace(/-/g, ' ')}
            </li>
          ))}
      </ul>
    </div>
  )
}
