import { InvalidInputError } from '../core/errors.js'

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }

/** The longest cooldown Homeport takes: a year (a longer one is a typo, or a freeze, which a block rule says better). */
export const MAX_COOLDOWN_SECONDS = 366 * 86_400

/**
 * A cooldown as people write it (`7d`, `36h`, `90m`, `1w2d`, `0` for none), in seconds. Days are 24
 * hours; months and years are refused (their length varies), as uv does. One unit system at every
 * face (the flag, the environment, the API, the GUI) rather than pnpm's minutes and npm's days.
 */
export function parseDuration(text: string, field = 'cooldown'): number {
  const trimmed = text.trim().toLowerCase()
  if (trimmed === '0' || trimmed === 'off') return 0
  const parts = [...trimmed.matchAll(/(\d+)\s*([smhdw])/g)]
  const consumed = parts.map((part) => part[0]).join('')
  if (parts.length === 0 || consumed.replace(/\s/g, '') !== trimmed.replace(/\s/g, '')) {
    throw new InvalidInputError(`"${text}" is not a duration: write it as 7d, 36h, 90m or 1w2d (s, m, h, d, w), or 0 for none.`, field)
  }
  const seconds = parts.reduce((sum, [, amount, unit]) => sum + Number(amount) * UNITS[unit!]!, 0)
  if (seconds > MAX_COOLDOWN_SECONDS) throw new InvalidInputError(`A cooldown of "${text}" is longer than a year; to keep a package out, block it.`, field)
  return seconds
}

/** Seconds as the shortest exact duration (`7d`, `36h`, `90m`, `0`), the form parseDuration reads. */
export function formatDuration(seconds: number): string {
  if (seconds === 0) return '0'
  let rest = seconds
  let text = ''
  for (const [unit, size] of Object.entries(UNITS).sort((a, b) => b[1] - a[1])) {
    if (unit === 'w') continue
    const amount = Math.floor(rest / size)
    if (amount > 0) text += `${amount}${unit}`
    rest -= amount * size
  }
  return text
}
