#!/usr/bin/env node
import { UsageError } from './boot/options.js'
import { boundHeapGrowth } from './boot/heap-growth.js'
import { COMMANDS, commandUsage, usage, usageHint } from './commands/all-commands.js'
import { runCommand, type Command } from './commands/command.js'

boundHeapGrowth()
const argv = process.argv.slice(2)
const [name, ...rest] = argv
const implicit = name === undefined || name.startsWith('-')
/** The command asked for (serve when none is named); undefined for one that does not exist. */
const chosen: Command | undefined = COMMANDS.find((each) => each.name === (implicit ? 'serve' : name))

/** `homeport <command> …`: runs the command; each lives in commands/. */
async function main(): Promise<void> {
  // `--help` anywhere is a question, not an unknown option: about the command named, or about them all.
  if (name === 'help' || (implicit && (argv.includes('--help') || argv.includes('-h')))) {
    process.stdout.write(usage())
    return
  }
  if (!chosen) throw new UsageError(`Unknown command "${name}".`)
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandUsage(chosen))
    return
  }
  return runCommand(chosen, implicit ? argv : rest)
}

main().catch((error: unknown) => {
  // A usage error is one line and the command's own usage, not every command's help.
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`homeport: ${(error as Error).message}\n${usageHint(chosen)}`)
    process.exit(2)
  }
  console.error(`homeport: ${(error as Error).message}`)
  process.exit(1)
})
