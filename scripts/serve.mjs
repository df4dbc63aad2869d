// `npm run serve`: builds Homeport when the build is missing or older than the sources, then
// runs the headless server (out/main/cli.js) with the arguments given after `--`.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const outputs = ['out/main/cli.js', 'out/renderer/index.html'].map((file) => join(root, file))
const sources = ['src-main', 'src-renderer', 'electron.vite.config.ts', 'package.json', 'package-lock.json']

function newest(path) {
  if (!existsSync(path)) return 0
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.mtimeMs
  return Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))))
}

const built = Math.min(...outputs.map((file) => (existsSync(file) ? statSync(file).mtimeMs : 0)))
if (built < Math.max(...sources.map((source) => newest(join(root, source))))) {
  console.log('Building Homeport…')
  const build = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit']
  })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

const server = spawn(process.execPath, [join(root, 'out/main/cli.js'), ...process.argv.slice(2)], { stdio: 'inherit' })
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal))
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
