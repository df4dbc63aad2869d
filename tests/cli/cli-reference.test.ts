import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { COMMANDS, usage } from '../../src-main/server/commands/all-commands.js'
import { cliReference } from '../../src-main/server/commands/cli-reference.js'

const ROOT = join(import.meta.dirname, '..', '..')

describe('the command line reference', () => {
  it('is the one the commands make: run npm run docs after changing a command or a setting', () => {
    expect(readFileSync(join(ROOT, 'docs', 'reference', 'cli.md'), 'utf8')).toBe(cliReference())
  })

  it('and homeport --help list every command, each with its options', () => {
    const help = usage()
    const reference = cliReference()
    for (const each of COMMANDS) {
      expect(help).toContain(`${each.name}: `)
      expect(reference).toContain(`## homeport ${each.name}`)
      if (each.name !== 'serve') for (const option of Object.keys(each.options)) expect(reference).toContain(`\`--${option}\``)
    }
  })
})
