import { X509Certificate } from 'node:crypto'
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { generate } from 'selfsigned'
import { writeFileAtomically } from './store/atomic-json-file.js'

export interface TlsMaterial {
  cert: string
  key: string
  /** The certificate a client should trust: Homeport's own CA, or the user's certificate. */
  trustPath: string
  generated: boolean
}

export interface TlsOptions {
  /** A certificate and key of the user's; otherwise Homeport makes its own. */
  certPath?: string
  keyPath?: string
  /** Names the certificate must be valid for, beside localhost and 127.0.0.1. */
  hostnames?: string[]
}

const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000

/**
 * The certificate for `--tls`. Without one of the user's, Homeport keeps a small local CA in
 * `<data-dir>/tls/` and a server certificate signed by it, valid for localhost, 127.0.0.1, ::1
 * and the registry hostname. The user trusts `ca.crt` once (SSL_CERT_FILE, or the OS store);
 * the server certificate is renewed behind it when it nears expiry or a name is missing.
 */
export async function resolveTls(dataDir: string, options: TlsOptions = {}): Promise<TlsMaterial> {
  if (options.certPath || options.keyPath) {
    if (!options.certPath || !options.keyPath) throw new Error('--tls-cert and --tls-key go together.')
    return { cert: await readFile(options.certPath, 'utf8'), key: await readFile(options.keyPath, 'utf8'), trustPath: options.certPath, generated: false }
  }
  const dir = join(dataDir, 'tls')
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const names = ['localhost', ...(options.hostnames ?? [])]
  const paths = { caCert: join(dir, 'ca.crt'), caKey: join(dir, 'ca.key'), cert: join(dir, 'server.crt'), key: join(dir, 'server.key') }

  let ca = await readPair(paths.caCert, paths.caKey)
  if (!ca || expiresSoon(ca.cert)) {
    const made = await generate([{ name: 'commonName', value: 'Homeport local CA' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 10 * 365 * 24 * 60 * 60 * 1000),
      extensions: [
        { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true }
      ]
    })
    ca = { cert: made.cert, key: made.private }
    await writeFileAtomically(paths.caKey, ca.key, 0o600)
    await writeFileAtomically(paths.caCert, ca.cert, 0o644)
  }

  let server = await readPair(paths.cert, paths.key)
  if (!server || expiresSoon(server.cert) || !coversNames(server.cert, names) || !signedBy(server.cert, ca.cert)) {
    const made = await generate([{ name: 'commonName', value: names.at(-1)! }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 397 * 24 * 60 * 60 * 1000),
      ca: { cert: ca.cert, key: ca.key },
      extensions: [
        { name: 'basicConstraints', cA: false, critical: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [...names.map((value) => ({ type: 2 as const, value })), { type: 7 as const, ip: '127.0.0.1' }, { type: 7 as const, ip: '::1' }]
        }
      ]
    })
    server = { cert: made.cert, key: made.private }
    await writeFileAtomically(paths.key, server.key, 0o600)
    await writeFileAtomically(paths.cert, server.cert, 0o644)
  }
  return { cert: server.cert, key: server.key, trustPath: paths.caCert, generated: true }
}

async function readPair(certPath: string, keyPath: string): Promise<{ cert: string; key: string } | undefined> {
  try {
    return { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8') }
  } catch {
    return undefined
  }
}

function expiresSoon(pem: string): boolean {
  return Date.parse(new X509Certificate(pem).validTo) - Date.now() < RENEW_BEFORE_MS
}

function coversNames(pem: string, names: string[]): boolean {
  const certificate = new X509Certificate(pem)
  return names.every((name) => certificate.checkHost(name) !== undefined)
}

function signedBy(pem: string, caPem: string): boolean {
  return new X509Certificate(pem).verify(new X509Certificate(caPem).publicKey)
}
