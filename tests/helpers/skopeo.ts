import { execFile, execFileSync } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Whether Debian's skopeo (a real OCI client: containers/image) is on PATH; .ci/run installs it. */
export const HAS_SKOPEO = (() => {
  try {
    execFileSync('skopeo', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

export const NEEDS_SKOPEO = HAS_SKOPEO ? '' : ' (skipped: no skopeo on PATH; apt-get install skopeo)'

export interface Skopeo {
  /** Runs skopeo with the given arguments; resolves with stdout, or rejects with stderr. */
  run(args: string[]): Promise<string>
  /** Arguments that trust the server's CA for a source (`--src-cert-dir`) or inspect (`--cert-dir`). */
  certDir: string
  /** Removes its home. */
  remove(): Promise<void>
}

/**
 * skopeo in a home of its own: it trusts only the given CA (Homeport's ca.crt), reads no one's
 * auth.json or registries.conf, and accepts any image (a signature policy is required to copy).
 */
export async function skopeo(trustPath: string): Promise<Skopeo> {
  const home = await mkdtemp(join(tmpdir(), 'homeport-skopeo-'))
  const certDir = join(home, 'certs')
  await mkdir(certDir)
  await copyFile(trustPath, join(certDir, 'ca.crt'))
  const policy = join(home, 'policy.json')
  await writeFile(policy, JSON.stringify({ default: [{ type: 'insecureAcceptAnything' }] }))
  const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_RUNTIME_DIR: home, XDG_CONFIG_HOME: join(home, 'config'), REGISTRY_AUTH_FILE: join(home, 'auth.json') }
  return {
    certDir,
    remove: () => rm(home, { recursive: true, force: true }),
    run: (args) =>
      new Promise((resolve, reject) => {
        const [command, ...rest] = args
        execFile('skopeo', [command!, ...(command === 'copy' ? ['--policy', policy] : []), ...rest], { env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
          error ? reject(new Error(`skopeo ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout)
        )
      })
  }
}
