import { randomBytes, webcrypto, X509Certificate } from 'node:crypto'
import { isIP } from 'node:net'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AsnConvert } from '@peculiar/asn1-schema'
import { GeneralName, GeneralSubtree, GeneralSubtrees, id_ce_nameConstraints, NameConstraints } from '@peculiar/asn1-x509'
import * as x509 from '@peculiar/x509'
import { makeFolder, writeInside } from '../files/folder-writes.js'
import { CA_CERT_FILE, CA_KEY_FILE, SERVER_CERT_FILE, SERVER_KEY_FILE, TLS_DIR } from './layout.js'

x509.cryptoProvider.set(webcrypto as Crypto)

export interface TlsMaterial {
  cert: string
  key: string
  /** The certificate a client should trust: Homeport's own CA, or the user's certificate. */
  trustPath: string
  generated: boolean
  /** Homeport made a new CA this start (the first, or one for new names): clients must trust it anew. */
  newCa: boolean
}

export interface TlsOptions {
  /** A certificate and key of the user's; otherwise Homeport makes its own. */
  certPath?: string
  keyPath?: string
  /** Names the certificate must be valid for, beside localhost, 127.0.0.1 and ::1 (host names or IP addresses). */
  hostnames?: string[]
}

const DAY_MS = 24 * 60 * 60 * 1000
const RENEW_BEFORE_MS = 30 * DAY_MS
const CA_LIFETIME_MS = 2 * 365 * DAY_MS
const SERVER_LIFETIME_MS = 397 * DAY_MS
const LOOPBACK = ['localhost', '127.0.0.1', '::1']
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const

/**
 * The certificate for `--tls`. Without one of the user's, Homeport keeps a small local CA in
 * `<data-dir>/tls/` and a server certificate signed by it. Users are asked to trust `ca.crt`, so
 * the CA is made harmless beyond Homeport: its Name Constraints permit only the names Homeport
 * serves (loopback, the registry hostname, what --allowed-hosts adds), it lives two years, and
 * its key never leaves the data directory (backups leave it out). The server certificate is
 * renewed behind it when it nears expiry; a name the CA does not permit means a new CA.
 */
export async function resolveTls(dataDir: string, options: TlsOptions = {}): Promise<TlsMaterial> {
  if (options.certPath || options.keyPath) {
    if (!options.certPath || !options.keyPath) throw new Error('--tls-cert and --tls-key go together.')
    return { cert: await readFile(options.certPath, 'utf8'), key: await readFile(options.keyPath, 'utf8'), trustPath: options.certPath, generated: false, newCa: false }
  }
  const dir = join(dataDir, TLS_DIR)
  await makeFolder(dir, undefined, 0o700)
  const names = [...new Set([...LOOPBACK, ...(options.hostnames ?? []).map((name) => name.toLowerCase())])]
  const paths = { caCert: join(dir, CA_CERT_FILE), caKey: join(dir, CA_KEY_FILE), cert: join(dir, SERVER_CERT_FILE), key: join(dir, SERVER_KEY_FILE) }

  let ca = await readPair(paths.caCert, paths.caKey)
  const newCa = !ca || expiresSoon(ca.cert) || !permitsOnly(ca.cert, names)
  if (newCa) {
    ca = await makeCa(names)
    await writeInside(dir, paths.caKey, ca.key, { atomic: true })
    await writeInside(dir, paths.caCert, ca.cert, { atomic: true, mode: 0o644 })
  }
  const authority = ca!

  let server = await readPair(paths.cert, paths.key)
  if (newCa || !server || expiresSoon(server.cert) || !coversNames(server.cert, names) || !signedBy(server.cert, authority.cert)) {
    server = await makeServerCertificate(authority, names)
    await writeInside(dir, paths.key, server.key, { atomic: true })
    await writeInside(dir, paths.cert, server.cert, { atomic: true, mode: 0o644 })
  }
  return { cert: server.cert, key: server.key, trustPath: paths.caCert, generated: true, newCa }
}

/** The CA's private key file: in the data directory only, never in a backup. */

interface Pair {
  cert: string
  key: string
}

async function makeCa(names: string[]): Promise<Pair> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])
  const constraints = new NameConstraints({
    permittedSubtrees: new GeneralSubtrees(
      names.map((name) => new GeneralSubtree({ base: new GeneralName(isIP(name) ? { iPAddress: `${name}/${isIP(name) === 4 ? 32 : 128}` } : { dNSName: name }) }))
    )
  })
  const now = Date.now()
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=Homeport local CA',
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + CA_LIFETIME_MS),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      new x509.Extension(id_ce_nameConstraints, true, AsnConvert.serialize(constraints)),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)
    ]
  })
  return { cert: certificate.toString('pem'), key: await pemOf(keys.privateKey) }
}

async function makeServerCertificate(ca: Pair, names: string[]): Promise<Pair> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])
  const authority = new x509.X509Certificate(ca.cert)
  const signingKey = await webcrypto.subtle.importKey('pkcs8', derOf(ca.key), ALGORITHM, false, ['sign'])
  const now = Date.now()
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${names.find((name) => !LOOPBACK.includes(name) && !isIP(name)) ?? 'localhost'}`,
    issuer: authority.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + SERVER_LIFETIME_MS),
    signingKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names.map((name) => ({ type: isIP(name) ? ('ip' as const) : ('dns' as const), value: name }))),
      await x509.AuthorityKeyIdentifierExtension.create(authority)
    ]
  })
  return { cert: certificate.toString('pem'), key: await pemOf(keys.privateKey) }
}

function serial(): string {
  // Positive, 16 random bytes (RFC 5280 wants at most 20 octets).
  const bytes = randomBytes(16)
  bytes[0]! &= 0x7f
  return bytes.toString('hex')
}

async function pemOf(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key))
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`
}

function derOf(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64')
}

async function readPair(certPath: string, keyPath: string): Promise<Pair | undefined> {
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
  return names.every((name) => (isIP(name) ? certificate.checkIP(name) : certificate.checkHost(name)) !== undefined)
}

function signedBy(pem: string, caPem: string): boolean {
  return new X509Certificate(pem).verify(new X509Certificate(caPem).publicKey)
}

/** Whether a CA's Name Constraints permit exactly `names`: older CAs without them are replaced. */
function permitsOnly(pem: string, names: string[]): boolean {
  const extension = new x509.X509Certificate(pem).getExtension(id_ce_nameConstraints)
  if (!extension) return false
  const constraints = AsnConvert.parse(extension.value, NameConstraints)
  const permitted = (constraints.permittedSubtrees ?? []).map((subtree) => subtree.base.dNSName ?? subtree.base.iPAddress?.replace(/\/\d+$/, ''))
  return permitted.length === names.length && names.every((name) => permitted.includes(name))
}
