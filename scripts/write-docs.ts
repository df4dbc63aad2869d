// `npm run docs`: writes the reference pages made from the code (docs/reference/cli.md and routes.md).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cliReference } from '../src-main/server/commands/cli-reference.js'
import { routeReference } from '../src-main/server/boot/route-reference.js'

const reference = join(import.meta.dirname, '..', 'docs', 'reference')
const pages: Array<[string, string]> = [['cli.md', cliReference()], ['routes.md', await routeReference()]]
for (const [page, text] of pages) {
  writeFileSync(join(reference, page), text)
  console.log(`Wrote ${join(reference, page)}.`)
}
