import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { ApiClient, ApiError } from './api-client'
import type { SignInOptions } from '@shared/sign-in'

interface Session {
  client: ApiClient
  /** True in the desktop app, where the main process signs the user in. */
  embedded: boolean
  signOut: () => void
}

/** How the browser is signed in: a token kept for this tab, or a single sign-on session in an HTTP-only cookie (no script sees it). */
type Credential = { kind: 'token'; token: string } | { kind: 'cookie' }

const SessionContext = createContext<Session | undefined>(undefined)
const STORAGE_KEY = 'homeport.token'

export function useSession(): Session {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession outside SessionProvider')
  return session
}

/**
 * Establishes who the GUI acts as: in Electron the main process hands over the admin token; in a
 * browser the user signs in with a token, kept for this tab only, or through the identity provider,
 * whose session is a cookie the server set (found by asking who the browser is).
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [credential, setCredential] = useState<Credential | null>(() => {
    const token = sessionStorage.getItem(STORAGE_KEY)
    return token ? { kind: 'token', token } : null
  })
  const [embedded, setEmbedded] = useState(false)
  // Nothing to find out with a token kept for this tab; otherwise, whether a cookie holds a session.
  const [loading, setLoading] = useState(() => Boolean(window.homeport) || sessionStorage.getItem(STORAGE_KEY) === null)
  const [options, setOptions] = useState<SignInOptions>({ singleSignOn: null })

  useEffect(() => {
    if (window.homeport) {
      void window.homeport
        .serverInfo()
        .then((info) => {
          setCredential({ kind: 'token', token: info.token })
          setEmbedded(true)
        })
        .finally(() => setLoading(false))
      return
    }
    if (credential) return
    // A single sign-on session, if the cookie holds one; and what the sign-in page may offer.
    void Promise.all([
      new ApiClient(null).get('/account/details').then(
        () => setCredential({ kind: 'cookie' }),
        () => undefined
      ),
      fetch('/auth/sign-in-options')
        .then((response) => (response.ok ? (response.json() as Promise<SignInOptions>) : undefined))
        .then((offered) => offered && setOptions(offered))
        .catch(() => undefined)
    ]).finally(() => setLoading(false))
    // Once, at start: a later change of credential is the sign-in's or the sign-out's doing.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])

  const queryClient = useQueryClient()
  // What one token was shown is never shown to the next: the cache goes with the session.
  const signOut = useCallback(() => {
    sessionStorage.removeItem(STORAGE_KEY)
    // The server ends a single sign-on session (the cookie is not the page's to remove), before the sign-in page shows.
    const ended = credential?.kind === 'cookie' ? fetch('/auth/sign-out', { method: 'POST' }).catch(() => undefined) : Promise.resolve()
    void ended.then(() => {
      queryClient.clear()
      setCredential(null)
    })
  }, [queryClient, credential])
  const session = useMemo(
    () => (credential ? { client: new ApiClient(credential.kind === 'token' ? credential.token : null), embedded, signOut } : undefined),
    [credential, embedded, signOut]
  )

  if (loading) return <p className="loading-screen">Starting Homeport…</p>
  if (!session) {
    return (
      <SignIn
        singleSignOn={options.singleSignOn}
        onSignedIn={(accepted) => {
          sessionStorage.setItem(STORAGE_KEY, accepted)
          queryClient.clear()
          setCredential({ kind: 'token', token: accepted })
        }}
      />
    )
  }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}

function SignIn({ onSignedIn, singleSignOn }: { onSignedIn: (token: string) => void; singleSignOn: SignInOptions['singleSignOn'] }) {
  const [value, setValue] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [checking, setChecking] = useState(false)

  const submit = async (event: React.FormEvent) => {
    event.preventDefault()
    const candidate = value.trim()
    if (!candidate) return
    setChecking(true)
    setError(null)
    try {
      await new ApiClient(candidate).get('/organizations?page[size]=1')
      onSignedIn(candidate)
    } catch (caught) {
      setError(
        caught instanceof ApiError && caught.status === 401
          ? 'Homeport did not accept that token. Check for a typo, or create a new team token.'
          : (caught as Error).message
      )
    } finally {
      setChecking(false)
    }
  }

  return (
    <main className="sign-in">
      <form className="card sign-in-card" onSubmit={(event) => void submit(event)}>
        <h1>
          <img src="/favicon.svg" alt="" width={36} height={36} /> Homeport
        </h1>
        <p className="muted">Your private Terraform module registry. Sign in {singleSignOn ? 'with your company’s account, or' : 'with'} an API token.</p>
        {singleSignOn && (
          <>
            {/* A link, not a script: the browser goes to the identity provider and comes back to this page. */}
            <a className="button primary sso" href={`${singleSignOn.url}?return_to=${encodeURIComponent(`${window.location.pathname}${window.location.search}`)}`}>
              Sign in with {singleSignOn.name}
            </a>
            <p className="divider" aria-hidden="true">
              or
            </p>
          </>
        )}
        <label htmlFor="token">API token</label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          autoFocus={!singleSignOn}
          value={value}
          onChange={(event) => setValue(event.target.value)}
          placeholder="hp1.…"
        />
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={checking || !value.trim()}>
          {checking ? 'Checking…' : 'Sign in'}
        </button>
        <p className="hint">
          The site-admin token is in the <code>admin-token</code> file of Homeport’s data folder; the server prints where when it
          starts.
        </p>
      </form>
    </main>
  )
}
