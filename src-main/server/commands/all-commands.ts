import { backup } from './backup.js'
import { bundle } from './bundle.js'
import type { Command } from './command.js'
import { importBundle } from './import.js'
import { importProviders } from './import-providers.js'
import { mcp } from './mcp.js'
import { migrate } from './migrate.js'
import { mirrorProvider } from './mirror-provider.js'
import { restore } from './restore.js'
import { serve, serveOptionsUsage } from './serve.js'
import { terraformConfig } from './terraform-config.js'

/** Every subcommand of `homeport`, in the order `homeport --help` lists them. */
export const COMMANDS: readonly Command[] = [serve, terraformConfig, mcp, backup, restore, mirrorProvider, importProviders, bundle, importBundle, migrate]

/** A command's usage line, as `homeport --help` lists it. */
const usageLine = (each: Command) => `homeport ${each.name === 'serve' ? '[serve]' : each.name} ${each.synopsis}`

/** `homeport --help`: each command's usage line, then what each does, then the settings of serve. */
export function usage(): string {
  const lines = COMMANDS.map((each, index) => `${index === 0 ? 'Usage: ' : '       '}${usageLine(each)}`)
  const descriptions = COMMANDS.map((each) => `${each.name}: ${each.description}`)
  return `${lines.join('\n')}\n\n${descriptions.join('\n')}\n\n${serveOptionsUsage()}`
}

/** `homeport <command> --help`: that command's usage and what it does (serve's with its settings). */
export function commandUsage(each: Command): string {
  return `Usage: ${usageLine(each)}\n\n${each.description.charAt(0).toUpperCase()}${each.description.slice(1)}\n${each.name === 'serve' ? `\n${serveOptionsUsage()}` : ''}`
}

/** After a usage error: the command's usage line alone, and where the rest is. */
export function usageHint(each: Command | undefined): string {
  if (!each) return 'Run homeport --help for the commands.'
  return `Usage: ${usageLine(each)}\nRun homeport ${each.name} --help for more.`
}
