#!/usr/bin/env node
import { UsageError } from './boot/options.js'
import { COMMANDS, usage } from './commands/all-commands.js'
import { runCommand } from './commands/command.js'

/** `homeport <command> …`: finds the command (serve when none is named) and runs it; each lives in commands/. */
async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv
  // `--help` anywhere, for any command, is a question, not an unknown option.
  if (name === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage())
    return
  }
  const implicit = name === undefined || name.startsWith('-')
  const chosen = COMMANDS.find((each) => each.name === (implicit ? 'serve' : name))
  if (!chosen) throw new UsageError(`Unknown command "${name}".`)
  return runCommand(chosen, implicit ? argv : rest)
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`homeport: ${(error as Error).message}\n\n${usage()}`)
    process.exit(2)
  }
  console.error(`homeport: ${(error as Error).message}`)
  process.exit(1)
})
