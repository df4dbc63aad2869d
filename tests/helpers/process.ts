import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { HOMEPORT_CLI } from './cli.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface ServerProcess {
  child: ChildProcess
  url: string
  output: () => string
}

/**
 * Runs the headless CLI (`homeport serve`) from source in a child process, so a test can kill
 * it for real. Resolves once it prints the URL it listens on.
 */
export function spawnServer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...HOMEPORT_CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`server did not start in time:\n${output}`))
    }, 20_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Homeport listening on (\S+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve({ child, url: match[1]!, output: () => output })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`server exited (${code ?? signal}) before it was ready:\n${output}`))
    })
  })
}

/** Resolves with the exit code (or signal) once the child has exited. */
export function exited(child: ChildProcess): Promise<number | string> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode)
  if (child.signalCode !== null) return Promise.resolve(child.signalCode)
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)))
}
