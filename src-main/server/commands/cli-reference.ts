import { SETTINGS } from '../boot/options.js'
import { COMMANDS } from './all-commands.js'

/**
 * docs/reference/cli.md, made from the commands and the settings table themselves (`npm run docs`
 * writes it; tests/cli/cli-reference.test.ts fails when the file and the code drift apart).
 */
export function cliReference(): string {
  const sections = COMMANDS.map((each) => {
    const flags = Object.entries(each.options).map(([name, spec]) => `\`--${name}\`${spec.short ? ` (\`-${spec.short}\`)` : ''}${spec.multiple ? ', repeatable' : ''}`)
    return [
      `## homeport ${each.name}`,
      '',
      '```',
      `homeport ${each.name} ${each.synopsis}`,
      '```',
      '',
      `${capitalized(each.description.replace(/\n\s+/g, ' '))}`,
      ...(each.name === 'serve' ? [] : ['', `Options: ${flags.join(', ') || 'none'}.`])
    ].join('\n')
  })
  const rows = SETTINGS.map((spec) => `| ${spec.flag ? `\`--${spec.flag}${spec.takes ? ` ${spec.takes}` : ''}\`` : ''} | \`${spec.env}\` | ${spec.help} | ${spec.shown} |`)
  return [
    '# Command line reference',
    '',
    '<!-- Generated from src-main/server/commands/ and boot/options.ts by `npm run docs`: edit those, not this file. -->',
    '',
    '`homeport --help` prints the same. Commands that work on a data directory take `--data-dir`, else',
    '`HOMEPORT_DATA_DIR`, else the desktop app’s folder; those that ask the running Homeport take `--token`, else',
    '`HOMEPORT_ADMIN_TOKEN`, else the data directory’s admin token.',
    '',
    sections.join('\n\n'),
    '',
    '## Settings of serve',
    '',
    'Each is a flag and an environment variable; a flag wins over its variable, and the variable over the default.',
    '',
    '| Flag | Variable | What | Default |',
    '|---|---|---|---|',
    ...rows,
    ''
  ].join('\n')
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
