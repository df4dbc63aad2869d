import { useDeferredValue, useEffect, useRef, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { navigate } from '../../lib/router'
import { useSession } from '../../lib/session'
import { hitRoute, searchOptions } from './api'

/** How many suggestions show under the box as one types; Enter without choosing one opens them all. */
const SUGGESTIONS = 8
/** Words shorter than this suggest nothing yet (one letter matches half the registry). */
const MIN_CHARACTERS = 2

/** What kind of thing a suggestion is, in a word. */
const KINDS = { organization: 'organization', module: 'module', provider: 'provider', 'provider-doc': 'doc' } as const

/**
 * The top bar's search over everything the caller may read (organizations, modules by their names,
 * descriptions, inputs and READMEs, providers, provider docs): suggestions as one types (the ARIA
 * combobox pattern: arrows move through them, Enter opens the one chosen, Escape closes them), Enter
 * alone opens every result; `/` anywhere but in a field focuses it, as on GitHub and HCP.
 */
export function GlobalSearch({ query }: { query: string }) {
  const { client } = useSession()
  const input = useRef<HTMLInputElement>(null)
  const [text, setText] = useState(query)
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(-1)
  const typed = useDeferredValue(text.trim())
  const asked = open && typed.length >= MIN_CHARACTERS
  const found = useQuery({ ...searchOptions(client, typed), enabled: asked, placeholderData: (previous) => previous })
  const suggestions = asked ? (found.data?.data ?? []).slice(0, SUGGESTIONS) : []
  const shown = suggestions.length > 0
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
  const close = () => {
    setOpen(false)
    setActive(-1)
  }
  const openHit = (index: number) => {
    const hit = suggestions[index]
    if (!hit) return
    close()
    navigate(hitRoute(hit))
  }
  return (
    <form
      role="search"
      className="global-search"
      onSubmit={(event) => {
        event.preventDefault()
        if (shown && active >= 0) return openHit(active)
        close()
        if (text.trim()) navigate({ page: 'search', query: text.trim() })
      }}
    >
      <input
        ref={input}
        type="search"
        role="combobox"
        aria-label="Search Homeport"
        aria-keyshortcuts="/"
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls="search-suggestions"
        aria-activedescendant={shown && active >= 0 ? `search-suggestion-${active}` : undefined}
        placeholder="Search organizations, modules, providers ( / )"
        value={text}
        onChange={(event) => {
          setText(event.target.value)
          setOpen(true)
          setActive(-1)
        }}
        onFocus={() => setOpen(true)}
        onBlur={close}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && shown) {
            event.preventDefault()
            close()
          } else if ((event.key === 'ArrowDown' || event.key === 'ArrowUp') && shown) {
            event.preventDefault()
            // From the box (-1) through each suggestion and back to the box, either way round.
            const last = suggestions.length - 1
            setActive((current) => (event.key === 'ArrowDown' ? (current >= last ? -1 : current + 1) : current <= -1 ? last : current - 1))
          }
        }}
      />
      <ul id="search-suggestions" role="listbox" aria-label="Suggestions" className="search-suggestions" hidden={!shown}>
        {suggestions.map((hit, index) => (
          <li
            key={hit.id}
            id={`search-suggestion-${index}`}
            role="option"
            aria-selected={index === active}
            // Chosen with the mouse without the box losing its focus first (which would close the list under the pointer).
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => openHit(index)}
          >
            <span className="badge neutral">{KINDS[hit.attributes.kind]}</span> <span className="suggestion-address">{hit.attributes.address}</span>
          </li>
        ))}
      </ul>
    </form>
  )
}
