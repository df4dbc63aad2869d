import { readFileSync } from 'node:fs'
import type { RecordFile, StoredDocument } from '../engine/record-backend.js'

/** A record file, read now: its content, or why it could not be read. */
export function readDocument(path: string, name: string): StoredDocument {
  try {
    const text = readFileSync(path, 'utf8')
    return { name, data: JSON.parse(text) as RecordFile, size: text.length }
  } catch (failure) {
    return { name, failure: failure as Error }
  }
}
