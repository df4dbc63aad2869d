import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from '@tanstack/react-router'
import { SessionProvider } from './lib/session'
import { router } from './app/routes'
import { applyTheme, storedTheme } from './lib/theme'
import './app/styles.css'

// The scheme chosen in Settings, before the first paint (no flash of the other one).
applyTheme(storedTheme())

// Addresses from before real paths (`/#/orgs/acme/modules`), in bookmarks and old links, open the same view.
if (window.location.hash.startsWith('#/')) window.history.replaceState(null, '', window.location.hash.slice(1))

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 } }
})

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <RouterProvider router={router} />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>
)
