import { readFile } from 'node:fs/promises'
import { dirname, isAbsolute } from 'node:path'
import { makeFolder, writeInside } from '../server/files/folder-writes.js'
import type { DesktopSettings } from '../shared/bridge.js'

export interface WindowState {
  width: number
  height: number
  x?: number
  y?: number
  maximized: boolean
}

const DEFAULT_WINDOW: WindowState = { width: 1280, height: 820, maximized: false }

/** Reads a JSON file of the desktop app's own, falling back to the defaults for anything missing or wrong. */
async function readJson(path: string): Promise<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'))
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

export async function loadSettings(path: string, defaults: DesktopSettings): Promise<DesktopSettings> {
  return checkSettings({ ...defaults, ...(await readJson(path)) }, defaults)
}

/** Keeps what is valid of `candidate`, the default for the rest. */
export function checkSettings(candidate: Record<string, unknown>, defaults: DesktopSettings): DesktopSettings {
  const port = candidate.port
  const dataDir = candidate.dataDir
  return {
    port: Number.isInteger(port) && (port as number) >= 0 && (port as number) <= 65535 ? (port as number) : defaults.port,
    dataDir: typeof dataDir === 'string' && isAbsolute(dataDir) ? dataDir : defaults.dataDir,
    edition: candidate.edition === 'self-hosted' ? 'self-hosted' : 'hosted',
    tls: candidate.tls === true
  }
}

export async function saveJson(path: string, value: unknown): Promise<void> {
  await makeFolder(dirname(path))
  await writeInside(dirname(path), path, JSON.stringify(value, null, 2), { atomic: true })
}

export async function loadWindowState(path: string): Promise<WindowState> {
  const state = await readJson(path)
  const number = (value: unknown, fallback: number | undefined) => (Number.isFinite(value) ? (value as number) : fallback)
  return {
    width: Math.max(640, number(state.width, DEFAULT_WINDOW.width)!),
    height: Math.max(480, number(state.height, DEFAULT_WINDOW.height)!),
    x: number(state.x, undefined),
    y: number(state.y, undefined),
    maximized: state.maximized === true
  }
}
