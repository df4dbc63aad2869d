// `npm run docs`: writes the reference pages made from the code (docs/reference/cli.md).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cliReference } from '../src-main/server/commands/cli-reference.js'

const target = join(import.meta.dirname, '..', 'docs', 'reference', 'cli.md')
writeFileSync(target, cliReference())
console.log(`Wrote ${target}.`)
