// `npm test`: the type check, lint, the build, the Vitest suites and the GUI in Chromium, in that order
// (the first failure stops it), then proof that the run changed no file git tracks (a test that writes
// into the checkout, such as a screenshot for the docs, fails the run; see `npm run screenshots`).
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'

const STEPS = ['tsc -b', 'eslint .', 'electron-vite build', 'vitest run', 'playwright test']

/** What the checkout looks like to git: its status and the content of its changes; undefined outside a git checkout. */
function checkout() {
  const status = spawnSync('git', ['status', '--porcelain=v1', '--untracked-files=all'], { encoding: 'utf8' })
  if (status.status !== 0) return undefined
  const diff = spawnSync('git', ['diff', '--binary'], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 })
  return { files: status.stdout, digest: createHash('sha256').update(diff.stdout ?? '').digest('hex') }
}

const before = checkout()
for (const step of STEPS) {
  console.log(`\n> ${step}`)
  const { status } = spawnSync(step, { shell: true, stdio: 'inherit' })
  if (status !== 0) process.exit(status ?? 1)
}
const after = checkout()
if (!before || !after) {
  console.log('\nNot a git checkout: whether the run changed tracked files was not checked.')
} else if (before.files !== after.files || before.digest !== after.digest) {
  const changed = after.files.split('\n').filter((line) => line && !before.files.split('\n').includes(line))
  console.error(`\nThe tests changed the checkout (a test must write only to temporary folders):\n${changed.join('\n') || '(files changed again that were already changed before the run)'}`)
  process.exit(1)
} else {
  console.log('\nThe checkout is as it was before the run.')
}
