// `npm test`: the type check, lint and the build at once, the GUI in Chromium beside the first two once
// the build is done, then the Vitest suites (a failure stops the run before a step that has not begun),
// then proof that the run changed no file git tracks (a test that writes into the checkout, such as a
// screenshot for the docs, fails the run; see `npm run screenshots`).
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'

/**
 * The steps, and what each waits for. Two cores are all there is, so what runs side by side is what
 * leaves one idle: ESLint's typed rules keep one core busy, the type check and the build fit beside
 * it, and the GUI specs (one worker, see playwright.config.ts) leave a third of two cores idle, which
 * the type check and lint fill (the three took 306 s one after the other, 277 s at once; the whole run 589 and 609 s). Vitest fills
 * both cores alone: run beside the checks it took as long as after them (371 s against 370), so it
 * runs last, by itself, its output shown as it comes. Each other step's output is shown whole once it
 * is done, so that no two interleave.
 */
const STEPS = [
  { command: 'tsc -b' },
  { command: 'npm run --silent lint' },
  { command: 'electron-vite build' },
  { command: 'playwright test', after: ['electron-vite build'] },
  { command: 'vitest run', after: ['tsc -b', 'npm run --silent lint', 'electron-vite build', 'playwright test'], live: true }
]

/** What the checkout looks like to git: its status and the content of its changes; undefined outside a git checkout. */
function checkout() {
  const status = spawnSync('git', ['status', '--porcelain=v1', '--untracked-files=all'], { encoding: 'utf8' })
  if (status.status !== 0) return undefined
  const diff = spawnSync('git', ['diff', '--binary'], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 })
  return { files: status.stdout, digest: createHash('sha256').update(diff.stdout ?? '').digest('hex') }
}

/** Writes to stdout, resolving once written (a pipe's writes are asynchronous on macOS, and the run may exit next). */
function write(text) {
  return new Promise((written) => process.stdout.write(text, written))
}

/** Runs a step; resolves with whether it passed, once its output is shown. */
async function run(step) {
  const started = Date.now()
  const took = () => `in ${Math.round((Date.now() - started) / 1000)} s`
  if (step.live) {
    await write(`\n> ${step.command}\n`)
    const { status } = spawnSync(step.command, { shell: true, stdio: 'inherit' })
    await write(`\n> ${step.command}: ${status === 0 ? 'passed' : 'FAILED'} ${took()}\n`)
    return status === 0
  }
  return new Promise((resolve) => {
    const child = spawn(step.command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } })
    const output = []
    child.stdout.on('data', (chunk) => output.push(chunk))
    child.stderr.on('data', (chunk) => output.push(chunk))
    child.on('close', async (status) => {
      await write(`\n> ${step.command}: ${status === 0 ? 'passed' : 'FAILED'} ${took()}\n`)
      await write(Buffer.concat(output))
      resolve(status === 0)
    })
  })
}

const before = checkout()
/** Each step's promise: true when it passed, false when it failed, undefined when it did not run because a step it waits for failed. */
const steps = new Map()
function start(step) {
  if (!steps.has(step.command)) {
    const waits = (step.after ?? []).map((command) => start(STEPS.find((other) => other.command === command)))
    steps.set(step.command, Promise.all(waits).then((passed) => (passed.every(Boolean) ? run(step) : undefined)))
  }
  return steps.get(step.command)
}
const results = await Promise.all(STEPS.map(start))
const failed = STEPS.filter((step, index) => results[index] === false).map((step) => step.command)
if (failed.length) {
  const skipped = STEPS.filter((step, index) => results[index] === undefined).map((step) => step.command)
  console.error(`\nFailed: ${failed.join(', ')} (the output is above).${skipped.length ? ` Not run: ${skipped.join(', ')}.` : ''}`)
  process.exit(1)
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
