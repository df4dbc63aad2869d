import type { ApiClient } from '../../lib/api-client'
import { saveFile } from '../../lib/save-file'

/**
 * Saves a backup taken now, while the server runs. A refusal comes in the server's own words: not
 * the site admin, or a registry kept in PostgreSQL (pg_dump backs it up).
 */
export async function downloadBackup(client: ApiClient): Promise<void> {
  const { blob, filename } = await client.downloadAbsolute('/api/homeport/v1/backup')
  saveFile(blob, filename)
}
