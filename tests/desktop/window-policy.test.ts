import { describe, expect, it } from 'vitest'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mayNavigate, opensExternally, secureWebPreferences } from '../../src-main/desktop/window-policy.js'
import { checkSettings, loadSettings, loadWindowState, saveJson } from '../../src-main/desktop/settings.js'

describe('the desktop window’s security settings', () => {
  it('keeps the renderer isolated, sandboxed and without Node.js', () => {
    const preferences = secureWebPreferences('/app/preload/index.cjs')
    expect(preferences).toMatchObject({
      preload: '/app/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false
    })
  })

  it('lets the window navigate only within the embedded server, and sends web links to the browser', () => {
    const server = 'http://127.0.0.1:4780'
    expect(mayNavigate('http://127.0.0.1:4780/orgs/acme/modules', server)).toBe(true)
    expect(mayNavigate('http://127.0.0.1:4781/', server)).toBe(false)
    expect(mayNavigate('https://example.com/', server)).toBe(false)
    expect(mayNavigate('file:///etc/passwd', server)).toBe(false)
    expect(mayNavigate('not a url', server)).toBe(false)
    expect(opensExternally('https://registry.terraform.io/')).toBe(true)
    expect(opensExternally('file:///etc/passwd')).toBe(false)
    expect(opensExternally('javascript:alert(1)')).toBe(false)
  })
})

describe('the desktop settings', () => {
  const defaults = { port: 4780, dataDir: '/home/u/.config/Homeport/registry', edition: 'hosted' as const, tls: false }

  it('keeps what is valid and falls back to the defaults for the rest', () => {
    expect(checkSettings({ port: 0, dataDir: '/data', edition: 'self-hosted', tls: true }, defaults)).toEqual({
      port: 0,
      dataDir: '/data',
      edition: 'self-hosted',
      tls: true
    })
    expect(checkSettings({ port: 70000, dataDir: 'relative', edition: 'cloud', tls: 'yes' }, defaults)).toEqual(defaults)
  })

  it('reads and writes settings and the window’s size, surviving a damaged file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'homeport-desktop-'))
    try {
      expect(await loadSettings(join(dir, 'settings.json'), defaults)).toEqual(defaults)
      await saveJson(join(dir, 'settings.json'), { ...defaults, port: 5000 })
      expect((await loadSettings(join(dir, 'settings.json'), defaults)).port).toBe(5000)
      await writeFile(join(dir, 'settings.json'), '{broken')
      expect(await loadSettings(join(dir, 'settings.json'), defaults)).toEqual(defaults)
      await saveJson(join(dir, 'window.json'), { width: 1500, height: 900, x: 10, y: 20, maximized: true })
      expect(await loadWindowState(join(dir, 'window.json'))).toEqual({ width: 1500, height: 900, x: 10, y: 20, maximized: true })
      await saveJson(join(dir, 'window.json'), { width: 10, height: 'tall' })
      expect(await loadWindowState(join(dir, 'window.json'))).toMatchObject({ width: 640, height: 820, maximized: false })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
