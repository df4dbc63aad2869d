import { useEffect, useRef, useState } from 'react'
import { navigate } from '../../lib/router'

/**
 * The top bar's search over everything the caller may read (organizations, modules by their names,
 * descriptions, inputs and READMEs, providers): Enter opens the results; `/` anywhere but in a field
 * focuses it, as on GitHub and HCP.
 */
export function GlobalSearch({ query }: { query: string }) {
  const input = useRef<HTMLInputElement>(null)
  const [text, setText] = useState(query)
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null
      const typing = target?.closest('input, textarea, select, [contenteditable="true"]')
      if (event.key === '/' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault()
        input.current?.focus()
        input.current?.select()
      }
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [])
  return (
    <form
      role="search"
      className="global-search"
      onSubmit={(event) => {
        event.preventDefault()
        if (text.trim()) navigate({ page: 'search', query: text.trim() })
      }}
    >
      <input
        ref={input}
        type="search"
        aria-label="Search Homeport"
        aria-keyshortcuts="/"
        placeholder="Search organizations, modules, providers ( / )"
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
    </form>
  )
}
