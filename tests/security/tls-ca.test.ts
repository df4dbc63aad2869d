import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { webcrypto, X509Certificate } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, connect } from 'node:tls'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as x509 from '@peculiar/x509'
import { resolveTls } from '../../src-main/server/data-dir/tls.js'

x509.cryptoProvider.set(webcrypto as Crypto)
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'homeport-tls-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A leaf for `name` signed with the CA's key, as anyone holding that key could make. */
async function leafSignedByCa(name: string, caPem: string, caKeyPem: string) {
  const caKey = await webcrypto.subtle.importKey('pkcs8', Buffer.from(caKeyPem.replace(/-----[^-]+-----|\s/g, ''), 'base64'), ALGORITHM, false, ['sign'])
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: '01',
    subject: `CN=${name}`,
    issuer: new x509.X509Certificate(caPem).subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    signingKey: caKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALGORITHM,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: name }]), new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth])]
  })
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey))
  return { cert: cert.toString('pem'), key: `-----BEGIN PRIVATE KEY-----\n${der.toString('base64')}\n-----END PRIVATE KEY-----\n` }
}

/** Whether a TLS client trusting only `ca` accepts `pair` for `servername` (OpenSSL enforces Name Constraints). */
async function accepted(pair: { cert: string; key: string }, ca: string, servername: string): Promise<true | string> {
  const server = createServer({ cert: pair.cert, key: pair.key }, (socket) => socket.end())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    return await new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, ca, servername }, () => {
        socket.destroy()
        resolve(true)
      })
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(`${error.code ?? ''} ${error.message}`))
    })
  } finally {
    server.close()
  }
}

describe('the local CA that users are asked to trust', () => {
  it('may sign only for the names Homeport serves, and lives two years', async () => {
    const tls = await resolveTls(dir, { hostnames: ['homeport.localhost', 'registry.lan', '192.168.50.2'] })
    expect(tls.newCa).toBe(true)
    const ca = await readFile(join(dir, 'tls', 'ca.crt'), 'utf8')
    const text = new X509Certificate(ca).toString()
    expect(new X509Certificate(ca).ca).toBe(true)
    const lifetime = Date.parse(new X509Certificate(ca).validTo) - Date.parse(new X509Certificate(ca).validFrom)
    expect(lifetime).toBeLessThanOrEqual(2 * 365 * 86_400_000 + 120_000)
    expect(text).toBeDefined()

    // The server certificate it issued works for every name it serves…
    for (const name of ['localhost', 'homeport.localhost', 'registry.lan']) expect(await accepted(tls, ca, name), name).toBe(true)
    // …and a certificate for any other site, made with the CA's own key, is refused by a verifying client.
    const caKey = await readFile(join(dir, 'tls', 'ca.key'), 'utf8')
    for (const name of ['www.example.com', 'registry.terraform.io', 'evil.localhost.example']) {
      const forged = await leafSignedByCa(name, ca, caKey)
      expect(await accepted(forged, ca, name), name).toMatch(/PERMITTED_SUBTREE_VIOLATION|permitted subtree/i)
    }
    // A name the CA permits is fine even when signed by hand (the constraint is what limits it).
    expect(await accepted(await leafSignedByCa('registry.lan', ca, caKey), ca, 'registry.lan')).toBe(true)
  })

  it('keeps its CA across starts, and makes a new one for new names or to replace an unconstrained one', async () => {
    const again = await resolveTls(dir, { hostnames: ['homeport.localhost', 'registry.lan', '192.168.50.2'] })
    expect(again.newCa).toBe(false)
    const more = await resolveTls(dir, { hostnames: ['homeport.localhost', 'other.lan'] })
    expect(more.newCa).toBe(true)
    expect(await accepted(more, await readFile(more.trustPath, 'utf8'), 'other.lan')).toBe(true)

    // A CA from an older Homeport, without Name Constraints, is replaced.
    const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])
    const old = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '02',
      name: 'CN=Homeport local CA',
      notAfter: new Date(Date.now() + 10 * 365 * 86_400_000),
      keys,
      signingAlgorithm: ALGORITHM,
      extensions: [new x509.BasicConstraintsExtension(true, 0, true)]
    })
    const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey))
    await writeFile(join(dir, 'tls', 'ca.crt'), old.toString('pem'))
    await writeFile(join(dir, 'tls', 'ca.key'), `-----BEGIN PRIVATE KEY-----\n${der.toString('base64')}\n-----END PRIVATE KEY-----\n`)
    const replaced = await resolveTls(dir, { hostnames: ['homeport.localhost', 'other.lan'] })
    expect(replaced.newCa).toBe(true)
    expect(await readFile(replaced.trustPath, 'utf8')).not.toBe(old.toString('pem'))
  })
})
