import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { ApiClient, ApiError } from './api-client'

interface Session {
  client: ApiClient
  /** True in the desktop app, where the main process signs the user in. */
  embedded: boolean
  signOut: () => void
}

const SessionContext = createContext<Session | undefined>(undefined)
const STORAGE_KEY = 'homeport.token'

export function useSession(): Session {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession outside SessionProvider')
  return session
}

/**
 * Establishes who the GUI acts as: in Electron the main process hands over the admin token; in
 * a browser the user signs in with a token, kept for this tab only.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [token, setToken] = useState<string | null>(() => sessionStorage.getItem(STORAGE_KEY))
  const [embedded, setEmbedded] = useState(false)
  const [loading, setLoading] = useState(Boolean(window.homeport))

  useEffect(() => {
    if (!window.homeport) return
    void window.homeport
      .serverInfo()
      .then((info) => {
        setToken(info.token)
        setEmbedded(true)
      })
      .finally(() => setLoading(false))
  }, [])

  const queryClient = useQueryClient()
  // What one token was shown is never shown to the next: the cache goes with the session.
  const signOut = useCallback(() => {
    sessionStorage.removeItem(STORAGE_KEY)
    queryClient.clear()
    setToken(null)
  }, [queryClient])
  const session = useMemo(() => (token ? { client: new ApiClient(token), embedded, signOut } : undefined), [token, embedded, signOut])

  if (loading) return <p className="loading-screen">Starting Homeport…</p>
  if (!session) {
    return (
      <SignIn
        onSignedIn={(accepted) => {
          sessionStorage.setItem(STORAGE_KEY, accepted)
          queryClient.clear()
          setToken(accepted)
        }}
      />
    )
  }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}

function SignIn({ onSignedIn }: { onSignedIn: (token: string) => void }) {
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
        <p className="muted">Your private Terraform module registry. Sign in with an API token.</p>
        <label htmlFor="token">API token</label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          autoFocus
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
