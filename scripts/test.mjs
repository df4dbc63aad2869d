// `npm test`: the type check, lint and the build at once, then the Vitest suites, then the GUI in
// Chromium (the first failure stops it), then proof that the run changed no file git tracks (a test
// that writes into the checkout, such as a screenshot for the docs, fails the run; see `npm run
// screenshots`).
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'

/**
 * The checks run side by side: ESLint's typed rules keep one core busy for a minute while the type
 * check and the build fit on the other (87 s one after the other, 69 s at once, on two cores).
 * The suites do not: each fills both cores, and run at once they took as long as one after the
 * other (569 s against 594) with every timing budget under twice the load.
 */
const CHECKS = ['tsc -b', 'npm run --silent lint', 'electron-vite build']
const SUITES = ['vitest run', 'playwright test']

/** What the checkout looks like to git: its status and the content of its changes; undefined outside a git checkout. */
function checkout() {
  const status = spawnSync('git', ['status', '--porcelain=v1', '--untracked-files=all'], { encoding: 'utf8' })
  if (status.status !== 0) return undefined
  const diff = spawnSync('git', ['diff', '--binary'], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 })
  return { files: status.stdout, digest: createHash('sha256').update(diff.stdout ?? '').digest('hex') }
}

/** Runs `command`, keeping its output; resolves with its exit status and what it printed. */
function quietly(command) {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } })
    const output = []
    child.stdout.on('data', (chunk) => output.push(chunk))
    child.stderr.on('data', (chunk) => output.push(chunk))
    child.on('close', (status) => resolve({ status, output: Buffer.concat(output) }))
  })
}

const before = checkout()
// Each check's output is shown whole, in order, once it is done: three at once would interleave.
const checks = CHECKS.map(quietly)
const failed = []
for (const [index, check] of checks.entries()) {
  const { status, output } = await check
  console.log(`\n> ${CHECKS[index]}`)
  // Written before any exit below, even where a pipe's writes are asynchronous (macOS).
  await new Promise((written) => process.stdout.write(output, written))
  if (status !== 0) failed.push(CHECKS[index])
}
if (failed.length) {
  console.error(`\nFailed: ${failed.join(', ')} (its output is above). The tests did not run.`)
  process.exit(1)
}
for (const suite of SUITES) {
  console.log(`\n> ${suite}`)
  const { status } = spawnSync(suite, { shell: true, stdio: 'inherit' })
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
