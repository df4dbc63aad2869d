import { readFileSync } from 'node:fs'
import type { RecordFile, StoredDocument } from '../engine/record-backend.js'

/** A record file, read now: its content, or why it could not be read. */
export function readDocument(path: string, name: string): StoredDocument {
  try {
    return { name, data: JSON.parse(readFileSync(path, 'utf8')) as RecordFile }
  } catch (failure) {
    return { name, failure: failure as Error }
  }
}
