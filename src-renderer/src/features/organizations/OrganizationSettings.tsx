import type { ReactNode } from 'react'
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { navigate } from '../../lib/router'
import { ApiError } from '../../lib/api-client'
import type { Resource } from '@shared/wire/jsonapi'
import { useSession } from '../../lib/session'
import { ErrorMessage } from '../../lib/ui'
import { entitlementOptions, useDeleteOrganization, useUpdateOrganization, type OrganizationAttributes } from './api'

type Field =
  | { key: string; label: string; kind: 'text' | 'email' | 'boolean'; hint?: string }
  | { key: string; label: string; kind: 'number'; hint?: string; max: number }
  | { key: string; label: string; kind: 'choice'; options: string[]; hint?: string }

/** What Homeport itself uses of an organization: its name (the modules' namespace) and whom to write to. */
const REGISTRY_FIELDS: Field[] = [
  { key: 'name', label: 'Name', kind: 'text', hint: 'Renaming changes the namespace of its private modules: configurations that use them must change their sources.' },
  { key: 'email', label: 'Admin e-mail', kind: 'email' }
]

/**
 * HCP Terraform's run, workspace and session settings (endpoint 12): kept and answered as HCP does,
 * so the tfe provider and go-tfe read back what they wrote, but nothing in a registry uses them.
 */
const HCP_FIELDS: Field[] = [
  { key: 'session-timeout', label: 'Session timeout (minutes)', kind: 'number', max: 20160, hint: 'At most 20,160 (two weeks).' },
  { key: 'session-remember', label: 'Session expiration (minutes)', kind: 'number', max: 20160, hint: 'At most 20,160 (two weeks).' },
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

/**
 * The organization's settings: what the registry uses first, HCP's run settings folded away, then
 * `children` (the GPG keys), the entitlements, and deleting it (its name typed to confirm).
 */
export function OrganizationSettings({ organization, children }: { organization: Resource<OrganizationAttributes>; children?: ReactNode }) {
  const { client } = useSession()
  const name = organization.id
  const attributes = organization.attributes as unknown as Record<string, unknown>
  const pool = (organization.relationships?.['default-agent-pool'] as { data: { id: string } | null } | undefined)?.data?.id ?? ''
  const initial: Record<string, unknown> = { ...attributes, 'default-agent-pool-id': pool }
  const [values, setValues] = useState<Record<string, unknown>>(initial)
  const update = useUpdateOrganization(client, name)
  const remove = useDeleteOrganization(client, name)
  const canUpdate = organization.attributes.permissions['can-update']
  const registryFields = REGISTRY_FIELDS.filter((field) => field.key in initial)
  const hcpFields = HCP_FIELDS.filter((field) => field.key in initial)
  const fields = [...registryFields, ...hcpFields]

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
          // The promise, not an onSuccess callback: a renamed organization's page unmounts when its refetch finds the old name gone.
          void update.mutateAsync(changed()).then((document) => {
            if (document.data.id !== name) navigate({ page: 'organization', org: document.data.id, tab: 'settings' })
          }, () => undefined)
        }}
      >
        <fieldset disabled={!canUpdate} className="settings-grid">
          <legend>Organization</legend>
          {registryFields.map((field) => (
            <SettingField key={field.key} field={field} values={values} setValues={setValues} invalid={error?.pointer === `/data/attributes/${field.key}`} />
          ))}
        </fieldset>
        {!canUpdate && <p className="hint">Only the organization’s owners change its settings.</p>}
        <details className="hcp-settings" open={hcpFields.some((field) => error?.pointer === `/data/attributes/${field.key}`) || undefined}>
          <summary>HCP Terraform run settings</summary>
          <p className="hint">Kept and answered as HCP Terraform does, so that the tfe provider and go-tfe read back what they set; a registry has no runs or workspaces, and Homeport uses none of them.</p>
          <fieldset disabled={!canUpdate} className="settings-grid">
            <legend className="visually-hidden">HCP Terraform run settings</legend>
            {hcpFields.map((field) => (
              <SettingField key={field.key} field={field} values={values} setValues={setValues} invalid={error?.pointer === `/data/attributes/${field.key}`} />
            ))}
          </fieldset>
        </details>
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

      {children}

      <Entitlements org={name} />

      {organization.attributes.permissions['can-destroy'] && (
        <div className="card padded danger-zone">
          <h2>Delete this organization</h2>
          <p className="muted">Its modules, versions, archives, teams and tokens go with it. This cannot be undone.</p>
          <DeleteOrganization name={name} busy={remove.isPending} onConfirm={() => void remove.mutateAsync().then(() => navigate({ page: 'organizations' }), () => undefined)} />
          <ErrorMessage error={remove.error} />
        </div>
      )}
    </section>
  )
}

function SettingField({
  field,
  values,
  setValues,
  invalid
}: {
  field: Field
  values: Record<string, unknown>
  setValues: (values: Record<string, unknown>) => void
  invalid: boolean
}) {
  const id = `setting-${field.key}`
  const hintId = field.hint ? `${id}-hint` : undefined
  return (
    <div className={field.kind === 'boolean' ? 'field checkbox' : 'field'}>
      {field.kind === 'boolean' ? (
        <label htmlFor={id} className="inline">
          <input id={id} type="checkbox" checked={values[field.key] === true} onChange={(event) => setValues({ ...values, [field.key]: event.target.checked })} />
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
              aria-describedby={hintId}
              {...(field.kind === 'number' ? { min: 1, max: field.max, step: 1 } : {})}
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
      {field.hint && (
        <p className="hint" id={hintId}>
          {field.hint}
        </p>
      )}
    </div>
  )
}

/** Deleting an organization takes everything in it: its name is typed first, as GitHub asks for a repository's. */
function DeleteOrganization({ name, busy, onConfirm }: { name: string; busy: boolean; onConfirm: () => void }) {
  const [typed, setTyped] = useState('')
  return (
    <form
      className="stack-tight"
      aria-label="Delete this organization"
      onSubmit={(event) => {
        event.preventDefault()
        if (typed === name) onConfirm()
      }}
    >
      <div className="field">
        <label htmlFor="delete-organization-name">
          Type <strong>{name}</strong> to confirm
        </label>
        <input id="delete-organization-name" value={typed} autoComplete="off" spellCheck={false} onChange={(event) => setTyped(event.target.value)} />
      </div>
      <div className="actions">
        <button type="submit" className="danger" disabled={typed !== name || busy}>
          {busy ? 'Deleting…' : `Delete ${name}`}
        </button>
      </div>
    </form>
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
      <p className="hint">What HCP Terraform’s API says this organization may use; Homeport answers with what it offers.</p>
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
