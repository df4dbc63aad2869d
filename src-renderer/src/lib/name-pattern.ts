import type { FormEvent } from 'react'

/** The characters of organization, team and module names: letters, digits, "-" and "_" (HCP's rule). */
export const NAME_PATTERN = '[A-Za-z0-9_\\-]+'
/** Module providers: lower-case letters and digits (Terraform's rule for a module's provider). */
export const PROVIDER_PATTERN = '[a-z0-9]+'

/**
 * An input's `pattern` with a message that says what is wrong with the value typed (which characters, and
 * what the rule is), where the browser would only say "Please match the requested format.".
 */
export function patternProps(pattern: string, rule: string) {
  const allowed = new RegExp(pattern.replace(/\+$/, ''), 'g')
  return {
    pattern,
    onInvalid: (event: FormEvent<HTMLInputElement>) => {
      const input = event.currentTarget
      if (!input.validity.patternMismatch) return
      const wrong = [...new Set(input.value.replace(allowed, ''))].map((character) => (character === ' ' ? 'a space' : `“${character}”`))
      input.setCustomValidity(`“${input.value}” has ${wrong.join(', ')}: ${rule}`)
    },
    // Asked again at the next check, with what is typed then.
    onInput: (event: FormEvent<HTMLInputElement>) => event.currentTarget.setCustomValidity('')
  }
}
