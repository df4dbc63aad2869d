import { useEffect, useSyncExternalStore } from 'react'

/**
 * What a page says its window's title is when the route's own would be wrong: a module or an
 * organization that does not exist is "Not found", not the address that was asked for. The shell
 * (app/App.tsx) names every other window after its route.
 */
let override: string | undefined
const listeners = new Set<() => void>()

function set(title: string | undefined): void {
  override = title
  for (const listener of listeners) listener()
}

/** The title a page set, while it is shown. */
export function useTitleOverride(): string | undefined {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => override
  )
}

/** Names the window `title` while the calling page is shown. */
export function useWindowTitle(title: string): void {
  useEffect(() => {
    set(title)
    return () => set(undefined)
  }, [title])
}
