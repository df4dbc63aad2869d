import { spawn } from 'node:child_process'
import { E2E_ADMIN_TOKEN } from '../../playwright.config'
import { testFolder } from './test-folder'

/**
 * A headless Homeport of the spec's own, on an empty data directory and a free port: for what
 * only a first run shows, which the suite's shared server is long past, or what needs settings of
 * its own (`args`: single sign-on's, say).
 */
export async function startOwnServer(args: string[] = []): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['out/main/cli.js', '--port', '0', '--data-dir', testFolder('data'), ...args], {
    env: { ...process.env, HOMEPORT_ADMIN_TOKEN: E2E_ADMIN_TOKEN },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const url = await new Promise<string>((resolve, reject) => {
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Homeport listening on (\S+)/.exec(output)
      if (match) resolve(match[1]!)
    })
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => reject(new Error(`Homeport exited (${code}) before it listened:\n${output}`)))
  })
  return {
    url,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done()
        child.once('exit', () => done())
        child.kill('SIGTERM')
      })
  }
}
