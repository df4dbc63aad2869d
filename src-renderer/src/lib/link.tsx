import type { AnchorHTMLAttributes } from 'react'
import { Link } from '@tanstack/react-router'
import { hrefOf, type Route } from './router'

/**
 * A link to a view of the app: TanStack Router's `Link` (a real `href`, opened without a reload,
 * or in a new tab as any link), named by the app's Route rather than a path spelled out.
 */
export function AppLink({ to, ...anchor }: { to: Route } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const [path, query = ''] = hrefOf(to).split('?', 2) as [string, string?]
  // Only a link to exactly this address is the current page by itself; a section's link says so through `aria-current`.
  return <Link {...anchor} to={path} search={Object.fromEntries(new URLSearchParams(query))} activeOptions={{ exact: true }} />
}
