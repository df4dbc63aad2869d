import { createHash } from 'node:crypto'
import type * as OpenPgp from 'openpgp'
import yauzl from 'yauzl'
import { InvalidInputError } from '../core/errors.js'

/**
 * The checks Terraform makes on a provider release (shared/research/providers.md §3.4–3.5),
 * made by Homeport when the files are uploaded, so that nothing is served that `terraform init`
 * would refuse: SHA256SUMS's format, the detached signature by the version's key, and each zip.
 */

/** OpenPGP, loaded when a key or a signature is first read rather than with every start. */
const loadOpenpgp = (): Promise<typeof OpenPgp> => import('openpgp')

/** SHA256SUMS, as `sha256sum` writes it: `<64 hex>  <file name>` per line. File name → hash. */
export function parseShasums(text: string): Map<string, string> {
  const sums = new Map<string, string>()
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue
    const match = /^([0-9a-fA-F]{64}) [ *]?(\S+)\s*$/.exec(line)
    if (!match) throw new InvalidInputError(`SHA256SUMS line ${index + 1} is not "<sha256>  <file name>": ${JSON.stringify(line.slice(0, 120))}`)
    sums.set(match[2]!, match[1]!.toLowerCase())
  }
  if (sums.size === 0) throw new InvalidInputError('SHA256SUMS lists no file.')
  return sums
}

/**
 * The primary key's long id (16 upper-case hex digits) of an ASCII-armored public key; refuses
 * anything else, naming the attribute it came in (`asciiArmor` in the GPG keys API).
 */
export async function publicKeyId(asciiArmor: string, attribute = 'asciiArmor'): Promise<string> {
  const name = attribute.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
  const openpgp = await loadOpenpgp()
  let key: OpenPgp.Key
  try {
    key = await openpgp.readKey({ armoredKey: asciiArmor })
  } catch (error) {
    throw new InvalidInputError(`${name} is not an ASCII-armored OpenPGP public key: ${(error as Error).message}`, attribute)
  }
  if (key.isPrivate()) throw new InvalidInputError(`${name} holds a private key: give the public key only (gpg --armor --export).`, attribute)
  return key.getKeyID().toHex().toUpperCase()
}

/**
 * A detached signature as Terraform reads it: binary. An armored one (`gpg --armor --detach-sign`)
 * is de-armored, since Terraform would refuse it as is.
 */
export async function binarySignature(bytes: Buffer): Promise<Uint8Array> {
  const text = bytes.subarray(0, 64).toString('latin1')
  const openpgp = await loadOpenpgp()
  try {
    const signature = text.startsWith('-----BEGIN PGP SIGNATURE-----')
      ? await openpgp.readSignature({ armoredSignature: bytes.toString('utf8') })
      : await openpgp.readSignature({ binarySignature: new Uint8Array(bytes) })
    // OpenPGP parsers skip packets they need not read (a marker packet): what is left must be a signature.
    if (signature.packets.length === 0) throw new Error('it holds no signature packet')
    return signature.write() as Uint8Array
  } catch (error) {
    throw new InvalidInputError(`The signature is not a detached OpenPGP signature: ${(error as Error).message}`)
  }
}

/** Whether `signature` is a valid signature of `signed` by the key in `asciiArmor`; the reason when not. */
export async function checkSignature(asciiArmor: string, signed: Buffer, signature: Uint8Array): Promise<void> {
  const openpgp = await loadOpenpgp()
  const verificationKeys = await openpgp.readKey({ armoredKey: asciiArmor })
  try {
    const message = await openpgp.createMessage({ binary: new Uint8Array(signed) })
    const { signatures } = await openpgp.verify({ message, signature: await openpgp.readSignature({ binarySignature: signature }), verificationKeys })
    if (signatures.length === 0) throw new Error('it holds no signature')
    await signatures[0]!.verified
  } catch (error) {
    // Whatever the bytes are, a signature that does not verify is the uploader's mistake, not Homeport's.
    throw new InvalidInputError(`SHA256SUMS.sig is not a valid signature of SHA256SUMS by key ${verificationKeys.getKeyID().toHex().toUpperCase()}: ${(error as Error).message}`)
  }
}


/**
 * What Terraform needs of a provider zip: a file `terraform-provider-<type>` (optionally followed by
 * `_…` or `.…`) at its root, and, for lock-file hashes that agree wherever it is installed from,
 * no directory entries. Read from the zip's central directory, through `readRange`.
 */
export async function checkProviderZip(type: string, size: number, readRange: (start: number, end: number) => NodeJS.ReadableStream): Promise<void> {
  const names = await zipEntryNames(size, readRange).catch((error: Error) => {
    throw new InvalidInputError(`The file is not a zip archive: ${error.message}`)
  })
  const directory = names.find((name) => name.endsWith('/'))
  if (directory !== undefined) {
    throw new InvalidInputError(`The zip has a directory entry, "${directory}": provider zips list files only (zip -D), or lock-file hashes differ between installs.`)
  }
  const executable = new RegExp(`^terraform-provider-${type.replace(/[^a-z0-9-]/gi, '')}(?:[_.].*)?$`)
  if (!names.some((name) => executable.test(name))) {
    throw new InvalidInputError(`The zip has no file terraform-provider-${type} at its root (it has ${names.slice(0, 5).join(', ') || 'no files'}): Terraform would not find the provider in it.`)
  }
}

function zipEntryNames(size: number, readRange: (start: number, end: number) => NodeJS.ReadableStream): Promise<string[]> {
  return readZip(size, readRange, (entry) => Promise.resolve(entry.fileName))
}

/**
 * The `h1:` of a provider zip, as Terraform computes it over an archive (Go's dirhash Hash1 over the
 * zip's entries, directories included: shared/research/providers.md §3.6): the SHA-256 of the
 * sorted lines `<sha256 of the entry>  <name>`, in base64.
 */
export async function archiveHash1(size: number, readRange: (start: number, end: number) => NodeJS.ReadableStream): Promise<string> {
  const lines = await readZip(size, readRange, async (entry, zip) => {
    if (entry.fileName.includes('\n')) throw new Error(`an entry's name has a line break: ${JSON.stringify(entry.fileName)}`)
    const hash = createHash('sha256')
    if (!entry.fileName.endsWith('/')) {
      const content = await new Promise<NodeJS.ReadableStream>((resolve, reject) => zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))))
      for await (const chunk of content) hash.update(chunk as Buffer)
    }
    return `${hash.digest('hex')}  ${entry.fileName}\n`
  }).catch((error: Error) => {
    throw new InvalidInputError(`The file is not a zip archive Terraform can read: ${error.message}`)
  })
  const names = (line: string) => line.slice(66, -1)
  lines.sort((a, b) => (names(a) < names(b) ? -1 : names(a) > names(b) ? 1 : 0))
  return `h1:${createHash('sha256').update(lines.join('')).digest('base64')}`
}

/** Reads a zip's entries one at a time through `readRange`, and what `each` makes of them, in the zip's order. */
function readZip<T>(size: number, readRange: (start: number, end: number) => NodeJS.ReadableStream, each: (entry: yauzl.Entry, zip: yauzl.ZipFile) => Promise<T>): Promise<T[]> {
  class Reader extends yauzl.RandomAccessReader {
    override _readStreamForRange(start: number, end: number) {
      // yauzl's end is exclusive; a read stream's is inclusive.
      return readRange(start, end - 1) as unknown as ReturnType<yauzl.RandomAccessReader['_readStreamForRange']>
    }
  }
  return new Promise((resolve, reject) => {
    yauzl.fromRandomAccessReader(new Reader(), size, { lazyEntries: true, autoClose: true }, (error, zip) => {
      if (error) return reject(error)
      const results: T[] = []
      zip.on('entry', (entry: yauzl.Entry) => {
        if (results.length >= 10_000) {
          zip.close()
          return reject(new Error('more than 10,000 entries'))
        }
        each(entry, zip).then((result) => {
          results.push(result)
          zip.readEntry()
        }, (failure: Error) => {
          zip.close()
          reject(failure)
        })
      })
      zip.on('end', () => resolve(results))
      zip.on('error', reject)
      zip.readEntry()
    })
  })
}
