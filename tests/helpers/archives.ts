import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { create } from 'tar'

/** Packs `files` (path → text) into a .tar.gz with the module at its root, as go-tfe's Upload does. */
export async function moduleArchive(files: Record<string, string | Buffer>): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'homeport-archive-'))
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true })
      await writeFile(join(dir, path), text)
    }
    const chunks: Buffer[] = []
    const stream = create({ cwd: dir, gzip: true, portable: true }, Object.keys(files).map((path) => path.split('/')[0]!).filter(unique))
    for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk)
    return Buffer.concat(chunks)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

function unique<T>(value: T, index: number, all: T[]): boolean {
  return all.indexOf(value) === index
}

export interface RawEntry {
  path: string
  /** Tar type flag: '0' file, '1' hard link, '2' symlink, '3' char device, '4' block device, '5' dir, '6' FIFO, 'x' PAX. */
  type?: string
  content?: string | Buffer
  linkpath?: string
  size?: number
}

/**
 * A tar built byte by byte, for the hostile archives no well-behaved tar writer would make:
 * absolute paths, `..`, links out of the root, devices.
 */
export function rawTar(entries: RawEntry[]): Buffer {
  const blocks: Buffer[] = []
  for (const entry of entries) {
    const content = typeof entry.content === 'string' ? Buffer.from(entry.content) : (entry.content ?? Buffer.alloc(0))
    const header = Buffer.alloc(512)
    header.write(entry.path.slice(0, 100), 0, 'utf8')
    header.write('0000644\0', 100)
    header.write('0000000\0', 108)
    header.write('0000000\0', 116)
    header.write(`${(entry.size ?? content.length).toString(8).padStart(11, '0')}\0`, 124)
    header.write('00000000000\0', 136)
    header.write('        ', 148)
    header.write(entry.type ?? '0', 156)
    if (entry.linkpath) header.write(entry.linkpath.slice(0, 100), 157)
    header.write('ustar\0', 257)
    header.write('00', 263)
    let sum = 0
    for (const byte of header) sum += byte
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148)
    blocks.push(header, content, Buffer.alloc((512 - (content.length % 512)) % 512))
  }
  blocks.push(Buffer.alloc(1024))
  return Buffer.concat(blocks)
}

export function gzip(data: Buffer): Buffer {
  return gzipSync(data)
}

/** A realistic module: root, a submodule, an example, heredocs, .tf.json, a README. */
export const NETWORK_MODULE: Record<string, string> = {
  'README.md': '# Network\n\nCreates a VPC with public and private subnets.\n',
  'versions.tf': `terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}
`,
  'variables.tf': `# The region to deploy into.
variable "region" {
  type        = string
  description = "AWS region"
  default     = "us-east-1"
}

variable "cidr_block" {
  description = <<-EOT
    The VPC's CIDR block.
    Must not overlap with peered networks.
  EOT
  type = string
}

variable "subnets" {
  type = map(object({
    cidr = string
    public = optional(bool, false)
  }))
  default = {}
}

variable "db_password" {
  type      = string
  sensitive = true
}
`,
  'main.tf': `resource "aws_vpc" "this" {
  cidr_block = var.cidr_block
  tags = { Name = "main" }
}

resource "aws_subnet" "this" {
  for_each   = var.subnets
  vpc_id     = aws_vpc.this.id
  cidr_block = each.value.cidr

  dynamic "timeouts" {
    for_each = each.value.public ? [1] : []
    content {
      create = "10m"
    }
  }
}

module "labels" {
  source  = "cloudposse/label/null"
  version = "0.25.0"
}
`,
  'outputs.tf.json': JSON.stringify({
    output: {
      vpc_id: { value: '${aws_vpc.this.id}', description: 'The VPC id' },
      secret: { value: '${var.db_password}', sensitive: true }
    }
  }),
  'modules/subnet/main.tf': `variable "vpc_id" {
  type = string
}

resource "aws_subnet" "extra" {
  vpc_id = var.vpc_id
}

output "id" {
  value = aws_subnet.extra.id
}
`,
  'modules/subnet/README.md': '# Subnet\n\nOne more subnet.\n',
  'examples/basic/main.tf': `module "network" {
  source     = "../.."
  cidr_block = "10.0.0.0/16"
}
`
}

/** One entry of a zip's central directory, as an unzipping tool checks it. */
export interface ZipDirectoryEntry {
  /** 0 stored, 8 deflated. */
  method: number
  crc: number
  compressed: number
  size: number
}

/** A zip's central directory, by file name (a zip without a comment, as Homeport makes them). */
export function zipDirectory(zip: Buffer): Map<string, ZipDirectoryEntry> {
  const end = zip.length - 22
  if (zip.readUInt32LE(end) !== 0x06054b50) throw new Error('no end-of-central-directory record where a zip without a comment has it')
  const entries = new Map<string, ZipDirectoryEntry>()
  for (let entry = 0, at = zip.readUInt32LE(end + 16); entry < zip.readUInt16LE(end + 10); entry++) {
    const nameLength = zip.readUInt16LE(at + 28)
    entries.set(zip.toString('utf8', at + 46, at + 46 + nameLength), {
      method: zip.readUInt16LE(at + 10),
      crc: zip.readUInt32LE(at + 16),
      compressed: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24)
    })
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32)
  }
  return entries
}
