import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from '@tanstack/react-router'
import { SessionProvider } from './lib/session'
import { router } from './app/routes'
import './app/styles.css'

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
