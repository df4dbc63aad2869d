import { execFile, execFileSync } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { PUBLIC_REGISTRY_HOSTS, terraformCliConfig } from '../../src-main/shared/terraform-config.js'

const run = promisify(execFile)

/**
 * Whether this machine has a real `terraform` on PATH. Some of the project's machines do; the
 * suite never installs one, and the scenarios that use it say they are skipped where it is absent.
 */
export const HAS_TERRAFORM = (() => {
  try {
    execFileSync('terraform', ['version'], { env: { ...process.env, TF_CLI_CONFIG_FILE: '/dev/null' }, stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

/** Appended to the name of a test that needs the binary, so a skipped run says why. */
export const NEEDS_TERRAFORM = HAS_TERRAFORM ? '' : ' (skipped: no terraform binary on PATH, and the suite never installs one)'

/** `terraform init` in `dir`, with a CLI configuration file and a fresh home, as a user with nothing else set up. */
export async function terraformInit(dir: string, env: { config: string; home: string; extra?: NodeJS.ProcessEnv }): Promise<string> {
  const { stdout } = await run('terraform', ['init', '-input=false', '-no-color'], {
    cwd: dir,
    env: { ...process.env, HOME: env.home, TF_CLI_CONFIG_FILE: env.config, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', ...env.extra }
  })
  return stdout
}

/**
 * `terraform providers lock` for each of `platforms`, in `dir`: its output, or the error's (stdout and
 * stderr together, since Terraform writes its diagnostics to stderr) with `failed`.
 */
export async function terraformLock(dir: string, platforms: string[], env: { config: string; home: string }): Promise<{ output: string; failed: boolean }> {
  try {
    const { stdout, stderr } = await run('terraform', ['providers', 'lock', '-no-color', ...platforms.map((platform) => `-platform=${platform}`)], {
      cwd: dir,
      env: { ...process.env, HOME: env.home, TF_CLI_CONFIG_FILE: env.config, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' }
    })
    return { output: stdout + stderr, failed: false }
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    return { output: stdout + stderr, failed: true }
  }
}

/** An unmodified configuration that needs the public provider `hashicorp/null ~> 3.2`. */
export const NEEDS_PUBLIC_NULL = 'terraform {\n  required_providers {\n    null = {\n      source  = "hashicorp/null"\n      version = "~> 3.2"\n    }\n  }\n}\n'

/**
 * `terraform init` of `mainTf` (by default an unmodified configuration that needs `hashicorp/null`),
 * with the generated air-gapped CLI configuration pointing registry.terraform.io at `homeport`; its
 * output and lock file (empty when nothing was locked).
 */
export async function initPublicProvider(
  homeport: { url: string; adminToken: string },
  dir: string,
  work: string,
  mainTf = NEEDS_PUBLIC_NULL
): Promise<{ stdout: string; lock: string }> {
  const env = await airGappedConfiguration(homeport, dir, work, mainTf)
  const stdout = await terraformInit(dir, env)
  return { stdout, lock: await readLock(dir) }
}

/** `terraform providers lock` of an unmodified configuration that needs `hashicorp/null`, as initPublicProvider sets it up. */
export async function lockPublicProvider(
  homeport: { url: string; adminToken: string },
  dir: string,
  work: string,
  platforms: string[]
): Promise<{ output: string; failed: boolean; lock: string }> {
  const env = await airGappedConfiguration(homeport, dir, work, NEEDS_PUBLIC_NULL)
  return { ...(await terraformLock(dir, platforms, env)), lock: await readLock(dir) }
}

/** `dir` holding `mainTf`, and the generated air-gapped CLI configuration pointing both public registries at `homeport`. */
async function airGappedConfiguration(homeport: { url: string; adminToken: string }, dir: string, work: string, mainTf: string): Promise<{ config: string; home: string }> {
  const home = join(work, 'home')
  await mkdir(home, { recursive: true })
  await mkdir(dir, { recursive: true })
  const config = join(work, 'air-gapped.tfrc')
  await writeFile(config, terraformCliConfig({ hostname: 'homeport.localhost', serverUrl: homeport.url, token: homeport.adminToken, publicHosts: PUBLIC_REGISTRY_HOSTS }))
  await writeFile(join(dir, 'main.tf'), mainTf)
  return { config, home }
}

/** The lock file Terraform wrote in `dir`; empty when it locked nothing. */
function readLock(dir: string): Promise<string> {
  return readFile(join(dir, '.terraform.lock.hcl'), 'utf8').catch(() => '')
}
