import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeInside } from '../files/folder-writes.js'
import { newToken } from '../domain/core/tokens.js'
import { ADMIN_TOKEN_FILE } from '../data-dir/layout.js'

export interface AdminToken {
  token: string
  /** Where it came from, for the start-up message. */
  source: { kind: 'environment' } | { kind: 'file'; path: string; created: boolean }
}

const MIN_LENGTH = 16

/**
 * The site-admin token: HOMEPORT_ADMIN_TOKEN when set, else the one in `<data-dir>/admin-token`,
 * generated (mode 0600) at first start. This one file holds a token in clear, because the user
 * has to be able to read it; the server itself keeps only its hash.
 */
export async function resolveAdminToken(dataDir: string, fromEnvironment: string | undefined): Promise<AdminToken> {
  if (fromEnvironment !== undefined && fromEnvironment !== '') {
    if (fromEnvironment.trim().length < MIN_LENGTH) {
      throw new Error(`HOMEPORT_ADMIN_TOKEN is too short to be safe: use at least ${MIN_LENGTH} characters.`)
    }
    return { token: fromEnvironment.trim(), source: { kind: 'environment' } }
  }
  const path = join(dataDir, ADMIN_TOKEN_FILE)
  const existing = await readAdminTokenFile(dataDir)
  if (existing) return { token: existing, source: { kind: 'file', path, created: false } }
  const token = newToken()
  await writeInside(dataDir, path, `${token}\n`, { atomic: true }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`Homeport cannot write a new admin token to ${path} (${error.code ?? error.message}): set HOMEPORT_ADMIN_TOKEN instead.`)
  })
  return { token, source: { kind: 'file', path, created: true } }
}

/** The token in `<data-dir>/admin-token`, without creating one. */
export async function readAdminTokenFile(dataDir: string): Promise<string | undefined> {
  try {
    const token = (await readFile(join(dataDir, ADMIN_TOKEN_FILE), 'utf8')).trim()
    return token.length >= MIN_LENGTH ? token : undefined
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}
