import { parseArgs } from 'node:util'

/** A command's options, as `parseArgs` takes them. */
type Options = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>

/** What `parseArgs` gives a command with these options: its values typed by them, and its positionals. */
export type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>

/**
 * One subcommand of `homeport`, whole: the dispatcher in `cli.ts`, `homeport --help` and the CLI
 * reference are all made from these, so a command is added by adding its file to `all-commands.ts`.
 */
export interface Command<O extends Options = Options> {
  name: string
  /** What follows `homeport <name>` on its usage line. */
  synopsis: string
  /** What it does, in a few lines, for `homeport --help`. */
  description: string
  options: O
  run(parsed: Parsed<O>): Promise<void>
}

/** Declares a command, its `run` typed by its own options. */
export const command = <O extends Options>(spec: Command<O>): Command => spec

/** Parses a command's arguments by its options (an unknown option is refused) and runs it. */
export function runCommand(chosen: Command, args: string[]): Promise<void> {
  return chosen.run(parseArgs({ args, options: chosen.options, allowPositionals: true, strict: true }))
}

/** The options every command that works on a data directory takes, the same way. */
export const DATA_DIR_OPTIONS = { 'data-dir': { type: 'string' }, token: { type: 'string' } } as const
