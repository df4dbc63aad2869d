/** The GUI's colour scheme: the system's (the default), or light or dark whatever the system says. */
export type Theme = 'system' | 'light' | 'dark'

export const THEMES: ReadonlyArray<{ theme: Theme; label: string }> = [
  { theme: 'system', label: 'As the system' },
  { theme: 'light', label: 'Light' },
  { theme: 'dark', label: 'Dark' }
]

/** Kept in this browser (or desktop app) for every session: a preference of the person, not of the registry. */
const STORAGE_KEY = 'homeport.theme'

export function storedTheme(): Theme {
  const stored = localStorage.getItem(STORAGE_KEY)
  return stored === 'light' || stored === 'dark' ? stored : 'system'
}

/** Shows the GUI in `theme` (the root's `data-theme`, which sets its `color-scheme`: app/styles.css) and remembers it. */
export function applyTheme(theme: Theme): void {
  if (theme === 'system') {
    delete document.documentElement.dataset.theme
    localStorage.removeItem(STORAGE_KEY)
  } else {
    document.documentElement.dataset.theme = theme
    localStorage.setItem(STORAGE_KEY, theme)
  }
}
