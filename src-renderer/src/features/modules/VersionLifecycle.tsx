import { useEffect, useRef, useState, type ReactNode } from 'react'
import { useQuery } from '@tanstack/react-query'
import { formatDate } from '../../lib/format'
import { useSession } from '../../lib/session'
import { ErrorMessage } from '../../lib/ui'
import { organizationOptions } from '../organizations/api'
import { useVersionLifecycle, versionOptions, type ModuleAddress } from './api'

/**
 * A version's deprecation or revocation, in its publisher's words, and (for those who may publish)
 * deprecating, revoking and reverting either, as HCP's module version lifecycle does.
 */
export function VersionLifecycle({ address, version }: { address: ModuleAddress; version: string }) {
  const { client } = useSession()
  const record = useQuery(versionOptions(client, address, version))
  const org = useQuery(organizationOptions(client, address.org))
  const change = useVersionLifecycle(client, address, version)
  const [asking, setAsking] = useState<'deprecate' | 'revoke'>()
  const [reason, setReason] = useState('')
  const [link, setLink] = useState('')
  /** The buttons that open the form: focus goes back to them when it closes (Cancel, Escape, done), not to the page. */
  const actions = useRef<HTMLDivElement>(null)
  const refocus = useRef(false)
  useEffect(() => {
    if (asking || !refocus.current) return
    refocus.current = false
    actions.current?.querySelector('button')?.focus()
  }, [asking])
  const close = () => {
    refocus.current = true
    setAsking(undefined)
  }
  const attributes = record.data?.data.attributes
  const canPublish = org.data?.data.attributes.permissions['can-create-module'] === true
  if (!attributes || attributes.status !== 'ok') return null
  const { deprecation, revocation } = attributes
  if (!deprecation && !canPublish) return null

  const submit = () => {
    const trimmedLink = link.trim() || null
    const body =
      asking === 'deprecate'
        ? { deprecation: { 'deprecated-status': 'Deprecated' as const, reason, link: trimmedLink } }
        : { revocation: { status: 'Revoked' as const, message: reason, link: trimmedLink } }
    change.mutate(body, {
      onSuccess: () => {
        close()
        setReason('')
        setLink('')
      }
    })
  }

  return (
    <section className={`card padded stack-tight${deprecation ? ' lifecycle-notice' : ''}`} aria-labelledby="lifecycle-title">
      <h2 id="lifecycle-title">{revocation ? `${version} is revoked` : deprecation ? `${version} is deprecated` : `Retire ${version}`}</h2>
      {revocation && (
        <Statement text={revocation.message} link={revocation.link}>
          Revoked by {revocation['revoked-by']} on {formatDate(revocation['revoked-at'])}. {consumers(revocation['existing-consumers'])}
        </Statement>
      )}
      {deprecation && (
        <Statement text={deprecation.reason} link={deprecation.link}>
          Deprecated by {deprecation['deprecated-by']} on {formatDate(deprecation['deprecated-at'])}.
        </Statement>
      )}
      {!deprecation && <p className="muted">Deprecating warns its users; revoking it then stops anyone new from installing it.</p>}
      {canPublish && asking && (
        <form
          className="stack-tight"
          aria-label={asking === 'deprecate' ? `Deprecate ${version}` : `Revoke ${version}`}
          onSubmit={(event) => {
            event.preventDefault()
            submit()
          }}
          onKeyDown={(event) => {
            if (event.key === 'Escape') close()
          }}
        >
          <label htmlFor="lifecycle-reason">{asking === 'deprecate' ? 'Why (users see it)' : 'Message to users'}</label>
          <textarea id="lifecycle-reason" value={reason} required rows={2} autoFocus onChange={(event) => setReason(event.target.value)} />
          <label htmlFor="lifecycle-link">Link (optional)</label>
          <input id="lifecycle-link" type="url" value={link} placeholder="https://…" onChange={(event) => setLink(event.target.value)} />
          <div className="form-row">
            <button type="submit" className={asking === 'revoke' ? 'danger' : 'primary'} disabled={change.isPending}>
              {asking === 'deprecate' ? 'Deprecate' : 'Revoke'}
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {canPublish && !asking && (
        <div className="form-row" ref={actions}>
          {!deprecation && (
            <button type="button" onClick={() => setAsking('deprecate')}>
              Deprecate {version}
            </button>
          )}
          {deprecation && !revocation && (
            <>
              <button
                type="button"
                className="danger-outline"
                onClick={() => {
                  // What users were told when it was deprecated is the likely message now: prefilled, to edit.
                  setReason(deprecation.reason)
                  setLink(deprecation.link ?? '')
                  setAsking('revoke')
                }}
              >
                Revoke {version}
              </button>
              <button type="button" onClick={() => change.mutate({ deprecation: { 'deprecated-status': 'Undeprecated' } })}>
                Undeprecate
              </button>
            </>
          )}
          {revocation && (
            <button type="button" onClick={() => change.mutate({ revocation: { status: 'Unrevoked' } })}>
              Unrevoke (back to deprecated)
            </button>
          )}
        </div>
      )}
      <ErrorMessage error={change.error} action="Could not change it" />
    </section>
  )
}

/** The publisher's words and link, then who did it and when. */
function Statement({ text, link, children }: { text: string; link: string | null; children: ReactNode }) {
  return (
    <p>
      {text}
      {link && (
        <>
          {' '}
          <a href={link} target="_blank" rel="noreferrer noopener">
            More
          </a>
        </>
      )}
      <br />
      <span className="muted">{children}</span>
    </p>
  )
}

/** Who may still install a revoked version, in words. */
function consumers(count: number): string {
  if (count === 0) return 'No token had downloaded it, so no one may install it now.'
  return `Only the ${count === 1 ? 'token' : `${count} tokens`} that had downloaded it may still install it.`
}
