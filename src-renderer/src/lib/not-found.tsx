import type { ReactNode } from 'react'
import { ApiError } from './api-client'
import { AppLink } from './link'
import type { Route } from './router'
import { ErrorMessage } from './ui'
import { useWindowTitle } from './window-title'

/** A page for what does not exist (a mistyped address, a module deleted since): what, why, and a way back. */
export function NotFound({ title, back, children }: { title: string; back: { to: Route; label: string }; children?: ReactNode }) {
  useWindowTitle(title)
  return (
    <section className="card padded stack-tight not-found" aria-labelledby="not-found-heading">
      <h1 id="not-found-heading">{title}</h1>
      {children && <p className="muted">{children}</p>}
      <p>
        <AppLink to={back.to}>{back.label}</AppLink>
      </p>
    </section>
  )
}

/**
 * A page's load that failed: a 404 is the not-found page (the server answers 404 to what does not
 * exist and to what the caller may not see, alike), anything else the error line with its retry.
 */
export function LoadFailure({ error, action, missing }: { error: Error; action: string; missing: { title: string; back: { to: Route; label: string }; explanation: string } }) {
  if (error instanceof ApiError && error.status === 404) {
    return (
      <NotFound title={missing.title} back={missing.back}>
        {missing.explanation}
      </NotFound>
    )
  }
  return <ErrorMessage error={error} action={action} />
}
