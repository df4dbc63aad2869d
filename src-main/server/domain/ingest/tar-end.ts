const BLOCK = 512
/** Largest PAX extended header read for a size override; real ones are a few hundred bytes. */
const MAX_PAX_BYTES = 1024 * 1024

/**
 * Follows a tar stream's block structure, as Go's archive/tar (Terraform's reader) does, to find
 * where the archive ends: two zero blocks in a row where a header is due. Whatever follows may
 * only be zeros (tar pads to its record size). Anything else, a second gzip member with entries
 * of its own say, would be stored and served whole to clients that read past the end, so the
 * archive is refused instead. node-tar stops at the end silently, which is why this exists. An
 * archive that simply stops after its last entry, without the marker, is fine (Go reads it too).
 */
export class TarEndCheck {
  private header = Buffer.alloc(BLOCK)
  private headerFill = 0
  /** Bytes of the current entry's body (padded to blocks) still to skip. */
  private skip = 0
  /** A PAX header's body being collected, and how much of it is still due. */
  private pax: Buffer[] | undefined
  private paxDue = 0
  /** The size a PAX `size` record gives the next entry. */
  private nextSize: number | undefined
  private zeroBlocks = 0
  private ended = false
  private trailing = false

  /** Feeds decompressed bytes; returns false once non-zero bytes follow the end of the archive. */
  write(chunk: Buffer): boolean {
    let position = 0
    while (position < chunk.length && !this.trailing) {
      if (this.ended) {
        this.trailing = chunk.subarray(position).some((byte) => byte !== 0)
        return !this.trailing
      }
      if (this.skip > 0) {
        const take = Math.min(this.skip, chunk.length - position)
        if (this.pax && this.paxDue > 0) {
          const part = Math.min(take, this.paxDue)
          this.pax.push(chunk.subarray(position, position + part))
          this.paxDue -= part
          if (this.paxDue === 0) this.nextSize = paxSize(Buffer.concat(this.pax)) ?? this.nextSize
        }
        this.skip -= take
        position += take
        if (this.skip === 0) this.pax = undefined
        continue
      }
      const take = Math.min(BLOCK - this.headerFill, chunk.length - position)
      chunk.copy(this.header, this.headerFill, position, position + take)
      this.headerFill += take
      position += take
      if (this.headerFill === BLOCK) {
        this.headerFill = 0
        this.onHeader()
      }
    }
    return !this.trailing
  }

  private onHeader(): void {
    if (this.header.every((byte) => byte === 0)) {
      this.zeroBlocks++
      if (this.zeroBlocks === 2) this.ended = true
      return
    }
    if (this.zeroBlocks > 0) {
      // One zero block then a header: not an end. Go refuses such an archive; so does Homeport.
      this.trailing = true
      return
    }
    const type = String.fromCharCode(this.header[156]!)
    const size = this.nextSize ?? headerSize(this.header)
    const isMeta = type === 'x' || type === 'g' || type === 'L' || type === 'K'
    // A PAX size applies to the next entry only (not to meta entries in between).
    if (!isMeta) this.nextSize = undefined
    // Link, directory, device and FIFO entries have no body, whatever their size field says.
    const hasBody = !['1', '2', '3', '4', '5', '6'].includes(type)
    this.skip = hasBody ? Math.ceil(size / BLOCK) * BLOCK : 0
    if (type === 'x' && size <= MAX_PAX_BYTES) {
      this.pax = []
      this.paxDue = size
    }
  }
}

/** A header's size field: octal, or base-256 when its first byte has the high bit set. */
function headerSize(header: Buffer): number {
  const field = header.subarray(124, 136)
  if (field[0]! & 0x80) {
    let size = field[0]! & 0x7f
    for (let i = 1; i < field.length; i++) size = size * 256 + field[i]!
    return size
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim()
  return text === '' ? 0 : parseInt(text, 8) || 0
}

/** The `size` record of a PAX extended header (`<length> size=<n>\n`), if it has one. */
function paxSize(body: Buffer): number | undefined {
  const match = /(?:^|\n)\d+ size=(\d+)\n/.exec(body.toString('utf8'))
  return match ? Number(match[1]) : undefined
}
