import { useState } from 'react'
import type { ApiClient } from '../../lib/api-client'
import { formatDate } from '../../lib/format'
import { ActionsHeader, ConfirmButton, ErrorMessage } from '../../lib/ui'
import { useAddRule, useRemoveRule, type GateRuleAttributes, type GateScope } from './api'

const EFFECTS: Record<GateRuleAttributes['effect'], string> = { block: 'Block', allow: 'Allow', exempt: 'Exempt from cooldown and approval' }

/** A scope's rules: which addresses and versions each names, and what it does; adding and removing for those who may. */
export function GateRules({ client, scope, rules, canManage }: { client: ApiClient; scope: GateScope; rules: GateRuleAttributes[]; canManage: boolean }) {
  const add = useAddRule(client, scope)
  const remove = useRemoveRule(client, scope)
  const empty = { effect: 'block', pattern: '', versions: '', reason: '' }
  const [rule, setRule] = useState(empty)
  const id = (name: string) => `gate-${scope ?? 'installation'}-rule-${name}`
  return (
    <section className="card padded stack-tight" aria-labelledby={id('title')}>
      <h2 id={id('title')}>Rules</h2>
      {rules.length === 0 ? (
        <p className="muted">No rules: every address comes in, subject to the cooldown and approvals above.</p>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Rules">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Effect</th>
                <th scope="col">Address</th>
                <th scope="col">Versions</th>
                <th scope="col">Reason</th>
                <th scope="col">Added</th>
                {canManage && <ActionsHeader />}
              </tr>
            </thead>
            <tbody>
              {rules.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <span className={`badge ${entry.effect === 'block' ? 'bad' : entry.effect === 'allow' ? 'good' : 'info'}`}>{EFFECTS[entry.effect]}</span>
                  </td>
                  <td>
                    <code>{entry.pattern}</code>
                  </td>
                  <td>{entry.versions ? <code>{entry.versions}</code> : <span className="muted">every version</span>}</td>
                  <td>{entry.reason || <span className="muted">none given</span>}</td>
                  <td>
                    {formatDate(entry['created-at'])} <span className="muted">by {entry['created-by']}</span>
                  </td>
                  {canManage && (
                    <td>
                      <ConfirmButton label="Remove" subject={`${entry.effect} ${entry.pattern}`} confirm={`Remove the rule ${entry.effect} ${entry.pattern}? It stops holding at once.`} action="Remove" busyLabel="Removing…" busy={remove.isPending} onConfirm={() => remove.mutate(entry.id)} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorMessage error={remove.error} action="Not removed" />
      {canManage && (
        <form
          className="stack-tight"
          aria-label="Add a rule"
          onSubmit={(event) => {
            event.preventDefault()
            add.mutate(rule, { onSuccess: () => setRule(empty) })
          }}
        >
          <h3 className="subheading">Add a rule</h3>
          <div className="form-row">
            <div className="field">
              <label htmlFor={id('effect')}>Effect</label>
              <select id={id('effect')} value={rule.effect} onChange={(event) => setRule({ ...rule, effect: event.target.value })}>
                {Object.entries(EFFECTS).map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </div>
            <div className="field grow">
              <label htmlFor={id('pattern')}>Address</label>
              <input id={id('pattern')} value={rule.pattern} placeholder="hashicorp/*" onChange={(event) => setRule({ ...rule, pattern: event.target.value })} />
            </div>
            <div className="field">
              <label htmlFor={id('versions')}>Versions</label>
              <input id={id('versions')} value={rule.versions} placeholder="every version" onChange={(event) => setRule({ ...rule, versions: event.target.value })} />
            </div>
          </div>
          <div className="field">
            <label htmlFor={id('reason')}>Reason{rule.effect === 'block' ? ' (clients are told it)' : ''}</label>
            <input id={id('reason')} value={rule.reason} placeholder={rule.effect === 'block' ? 'CVE-2026-0001: upgrade to 6.1.1' : 'optional'} onChange={(event) => setRule({ ...rule, reason: event.target.value })} />
          </div>
          <p className="hint">
            An address is <code>namespace/type</code> or <code>namespace/name/provider</code>, with <code>*</code> for any part (<code>hashicorp/*</code> names every provider and module of the namespace), optionally after a registry’s hostname. Versions take Terraform’s constraints (<code>&gt;= 6.0.0, &lt; 6.2.0</code>, <code>= 6.1.2</code>).
          </p>
          <button type="submit" className="fit" disabled={add.isPending || rule.pattern.trim() === ''}>
            {add.isPending ? 'Adding…' : 'Add rule'}
          </button>
          <ErrorMessage error={add.error} action="Not added" />
        </form>
      )}
    </section>
  )
}
