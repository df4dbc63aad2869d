import type { AnchorHTMLAttributes } from 'react'
import { Link } from '@tanstack/react-router'
import { hrefOf, navigate, type Route } from './router'

/**
 * A link to a view of the app: TanStack Router's `Link` (a real `href`, opened without a reload,
 * or in a new tab as any link), named by the app's Route rather than a path spelled out.
 */
export function AppLink({ to, ...anchor }: { to: Route } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const [path, query = ''] = hrefOf(to).split('?', 2) as [string, string?]
  // Only a link to exactly this address is the current page by itself; a section's link says so through `aria-current`.
  return <Link {...anchor} to={path} search={Object.fromEntries(new URLSearchParams(query))} activeOptions={{ exact: true }} />
}

/**
 * A link in a long list (a provider's thousand docs): a plain anchor with the view's real `href`,
 * opened through the router on a plain click and as any link otherwise (a new tab, a copied address).
 * TanStack's `Link` subscribes each one to the router's state: a thousand of them took 200 ms to draw.
 */
export function ListLink({ to, ...anchor }: { to: Route } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'onClick'>) {
  return (
    <a
      {...anchor}
      href={hrefOf(to)}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
        event.preventDefault()
        navigate(to)
      }}
    />
  )
}
