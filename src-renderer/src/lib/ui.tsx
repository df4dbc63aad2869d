import { useEffect, useState, type ReactNode } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { ApiError } from './api-client'
import { AppLink } from './link'
import type { Route } from './router'

/** How often the GUI looks again while Homeport does not answer. */
const RECHECK_MS = 5_000

/**
 * A failed request, in the server's own words. When Homeport did not answer at all (stopped, restarting),
 * the page's data is asked for again every few seconds, and at once on Retry, so the page recovers by
 * itself when the server is back.
 */
export function ErrorMessage({ error, action }: { error: Error | null; action?: string }) {
  const queryClient = useQueryClient()
  const unreachable = error instanceof ApiError && error.status === 0
  useEffect(() => {
    if (!unreachable) return
    const timer = setInterval(() => void queryClient.refetchQueries({ type: 'active' }), RECHECK_MS)
    return () => clearInterval(timer)
  }, [unreachable, queryClient])
  if (!error) return null
  return (
    <p role="alert" className="error">
      {action ? `${action}: ` : ''}
      {error.message}
      {unreachable && (
        <>
          {' '}
          Looking again every few seconds.{' '}
          <button type="button" className="link" onClick={() => void queryClient.refetchQueries({ type: 'active' })}>
            Retry now
          </button>
        </>
      )}
    </p>
  )
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" aria-busy="true">
      Loading {what}…
    </p>
  )
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <h2>{title}</h2>
      {children && <div className="muted">{children}</div>}
    </div>
  )
}

const STATUS_TONES: Record<string, string> = {
  ok: 'good',
  setup_complete: 'good',
  pending: 'neutral',
  cloning: 'busy',
  reg_ingressing: 'busy',
  no_version_tags: 'warn',
  clone_failed: 'bad',
  reg_ingress_failed: 'bad',
  reg_ingress_req_failed: 'bad',
  setup_failed: 'bad'
}

const STATUS_WORDS: Record<string, string> = {
  ok: 'published',
  setup_complete: 'ready',
  pending: 'waiting for an archive',
  cloning: 'reading the repository',
  reg_ingressing: 'ingesting',
  no_version_tags: 'no version tags',
  clone_failed: 'repository read failed',
  reg_ingress_failed: 'ingest failed',
  reg_ingress_req_failed: 'ingest failed',
  setup_failed: 'setup failed'
}

/** A status as a coloured badge, in words, with the API's name in its title. A module's `pending` is not a version's. */
export function StatusBadge({ status, of = 'version' }: { status: string; of?: 'module' | 'version' }) {
  const words = of === 'module' && status === 'pending' ? 'no version yet' : (STATUS_WORDS[status] ?? status)
  return (
    <span className={`badge ${STATUS_TONES[status] ?? 'neutral'}`} title={status}>
      {words}
    </span>
  )
}

/**
 * A destructive action behind a second, explicit click. `label` is what the first button
 * says; the confirmation names what goes, and its button what happens (`action`, Delete unless told).
 */
export function ConfirmButton({
  label,
  confirm,
  onConfirm,
  busy,
  action = 'Delete',
  busyLabel = 'Deleting…',
  subject
}: {
  label: string
  /** What it acts on ("1.0.0", "team readers"), for its accessible name where several such buttons are listed. */
  subject?: string
  confirm: string
  onConfirm: () => void
  busy?: boolean
  action?: string
  busyLabel?: string
}) {
  const [asking, setAsking] = useState(false)
  if (!asking) {
    return (
      <button type="button" className="danger-outline" aria-label={subject ? `${label} ${subject}` : undefined} onClick={() => setAsking(true)}>
        {label}
      </button>
    )
  }
  return (
    <span
      className="confirm"
      role="group"
      aria-label="Confirm"
      onKeyDown={(event) => {
        // Escape takes the question back, as a dialog's would.
        if (event.key === 'Escape') setAsking(false)
      }}
    >
      <span>{confirm}</span>
      <button type="button" onClick={() => setAsking(false)} autoFocus>
        Cancel
      </button>
      <button type="button" className="danger" disabled={busy} onClick={onConfirm}>
        {busy ? busyLabel : action}
      </button>
    </span>
  )
}

/** What an empty filtered list offers: its filters cleared, to see everything again. */
export function ClearFilters({ onClear }: { onClear: () => void }) {
  return (
    <button type="button" className="link" onClick={onClear}>
      Clear the filters
    </button>
  )
}

export interface Tab<T extends string> {
  id: T
  label: string
}

/** Tabs as links: each tab has its own address, so back and reload keep it. */
export function Tabs<T extends string>({ tabs, current, linkTo }: { tabs: Array<Tab<T>>; current: T; linkTo: (id: T) => Route }) {
  return (
    <nav className="tabs" aria-label="Sections">
      {tabs.map((tab) => (
        <AppLink key={tab.id} to={linkTo(tab.id)} aria-current={tab.id === current ? 'page' : undefined}>
          {tab.label}
        </AppLink>
      ))}
    </nav>
  )
}

/** The header of a table's column of buttons: named for screen readers, blank to the eye. */
export function ActionsHeader() {
  return (
    <th scope="col">
      <span className="visually-hidden">Actions</span>
    </th>
  )
}
