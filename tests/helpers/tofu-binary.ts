import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

/**
 * Whether this machine has a real OpenTofu (`tofu`) on PATH. None of the project's machines can
 * install one; the scenarios that need it say they are skipped where it is absent.
 */
export const HAS_TOFU = (() => {
  try {
    execFileSync('tofu', ['version'], { env: { ...process.env, TF_CLI_CONFIG_FILE: '/dev/null' }, stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

export const NEEDS_TOFU = HAS_TOFU ? '' : ' (skipped: no tofu binary on PATH, and none can be installed on these machines)'

/** `tofu init` in `dir` with a CLI configuration file and a fresh home; its output, or the error's with `failed`. */
export async function tofuInit(dir: string, env: { config: string; home: string; extra?: NodeJS.ProcessEnv }): Promise<{ output: string; failed: boolean }> {
  try {
    const { stdout, stderr } = await run('tofu', ['init', '-input=false', '-no-color'], {
      cwd: dir,
      env: { ...process.env, HOME: env.home, TF_CLI_CONFIG_FILE: env.config, TF_IN_AUTOMATION: '1', ...env.extra }
    })
    return { output: stdout + stderr, failed: false }
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    return { output: stdout + stderr, failed: true }
  }
}
