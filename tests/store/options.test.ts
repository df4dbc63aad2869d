import { describe, expect, it } from 'vitest'
import { defaultDataDir } from '../../src-main/server/data-dir/default-dir.js'
import { readFile } from 'node:fs/promises'
import { parseServeOptions, SETTINGS, settingsUsage, UsageError } from '../../src-main/server/boot/options.js'

describe('serve options', () => {
  it('defaults to loopback, port 4780, the hosted edition and the desktop app’s folder', () => {
    const options = parseServeOptions([], {})
    expect(options).toMatchObject({ host: '127.0.0.1', port: 4780, edition: 'hosted', publicCuration: true, maxArchiveBytes: 100 * 1024 * 1024 })
    expect(options.dataDir).toBe(defaultDataDir())
    expect(options.baseUrl).toBeUndefined()
  })

  it('takes flags over environment variables over defaults', () => {
    const env = { HOMEPORT_PORT: '9000', HOMEPORT_EDITION: 'self-hosted', HOMEPORT_DATA_DIR: '/env/dir', HOMEPORT_PUBLIC_CURATION: 'off' }
    expect(parseServeOptions([], env)).toMatchObject({ port: 9000, edition: 'self-hosted', dataDir: '/env/dir', publicCuration: false })
    expect(parseServeOptions(['--port', '0', '--data-dir', '/flag/dir', '--max-archive-size', '5'], env)).toMatchObject({
      port: 0,
      dataDir: '/flag/dir',
      maxArchiveBytes: 5 * 1024 * 1024
    })
  })

  it('refuses bad values with a usage error', () => {
    for (const args of [['--port', '70000'], ['--port', 'x'], ['--edition', 'cloud'], ['--base-url', 'ftp://x'], ['--public-curation', 'maybe'], ['--max-archive-size', '0']]) {
      expect(() => parseServeOptions(args, {}), args.join(' ')).toThrow(UsageError)
    }
    expect(() => parseServeOptions(['--unknown'], {})).toThrow(/Unknown option/)
  })

  it('finds the same per-user folder Electron uses', () => {
    expect(defaultDataDir('linux', {}, '/home/u')).toBe('/home/u/.config/Homeport/registry')
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: '/xdg' }, '/home/u')).toBe('/xdg/Homeport/registry')
    expect(defaultDataDir('darwin', {}, '/Users/u')).toBe('/Users/u/Library/Application Support/Homeport/registry')
    expect(defaultDataDir('win32', { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'C:\\Users\\u')).toContain('Homeport')
  })
})

describe('the one table of settings', () => {
  it('is what the running-headless page’s options table says, row for row', async () => {
    const readme = await readFile(new URL('../../docs/operations/running-headless.md', import.meta.url), 'utf8')
    const table = readme.slice(readme.indexOf('| Option | Environment | Default | Meaning |'))
    const lines = table.split('\n').slice(2)
    const rows = lines
      .slice(0, lines.findIndex((line) => !line.startsWith('|')))
      .map((line) => line.split('|').slice(1, 4).map((cell) => cell.trim().replace(/`/g, '')))
    expect(rows).toEqual(SETTINGS.map((spec) => [spec.flag ? `--${spec.flag}` : '', spec.env, spec.shown]))
  })

  it('is what homeport --help lists', () => {
    const usage = settingsUsage()
    for (const spec of SETTINGS) {
      expect(usage).toContain(spec.env)
      if (spec.flag) expect(usage).toContain(`--${spec.flag}`)
    }
  })
})
