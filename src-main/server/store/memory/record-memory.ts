import type { Adapter } from 'lowdb'
import type { RecordBackend, RecordFile, StoredDocument } from '../engine/record-backend.js'

/** Records in memory only: the same collection logic, for fast domain tests. */
export class RecordMemory implements RecordBackend {
  private readonly documents = new Map<string, string>()

  readAll(): StoredDocument[] {
    return [...this.documents.keys()].sort().map((name) => ({ name, data: JSON.parse(this.documents.get(name)!) as RecordFile }))
  }

  document(name: string): Adapter<RecordFile> {
    return {
      // Kept as JSON, as on disk: what is read back shares nothing with what was written.
      read: () => Promise.resolve(this.documents.has(name) ? (JSON.parse(this.documents.get(name)!) as RecordFile) : null),
      write: (data) => {
        this.documents.set(name, JSON.stringify(data))
        return Promise.resolve()
      }
    }
  }

  remove(name: string): Promise<void> {
    this.documents.delete(name)
    return Promise.resolve()
  }

  describe(name: string): string {
    return `memory:${name}`
  }
}
