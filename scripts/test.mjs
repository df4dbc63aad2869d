// `npm test`: the type check, lint and the build at once, the GUI in Chromium once the build is done,
// the Vitest suites once the checks have passed, beside the GUI (a failure stops the run before a step
// that has not begun), then proof that the run changed no file git tracks (a test that writes into the
// checkout, such as a screenshot for the docs, fails the run; see `npm run screenshots`).
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'

/**
 * The steps, and what each waits for. Two cores are all there is, and every step is bound by the CPU,
 * so what runs side by side is what leaves a core idle otherwise: the GUI specs (one worker, see
 * playwright.config.ts) use about 1.4 cores, the type check and ESLint fill the rest for their first
 * two and a half minutes, and the Vitest suites (a worker per core) the rest after that. The GUI then
 * takes longer (9 minutes rather than 5) but the whole run less: 545 s against 617 with Vitest after
 * the GUI. The two end within seconds of each other and the cores are idle 1% of the time, where a
 * third of them was idle for the two and a half minutes the GUI ran alone. Vitest's output is shown as
 * it comes; each other step's is shown whole once it is done, so that no two interleave.
 */
const STEPS = [
  { command: 'tsc -b' },
  { command: 'npm run --silent lint' },
  { command: 'electron-vite build' },
  { command: 'playwright test', after: ['electron-vite build'] },
  { command: 'vitest run', after: ['tsc -b', 'npm run --silent lint', 'electron-vite build'], live: true }
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
    // Not spawnSync: a step beside it writes into a pipe this process must keep reading, or it stalls once the pipe is full.
    const status = await new Promise((exited) => spawn(step.command, { shell: true, stdio: 'inherit' }).on('close', exited))
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
