import { resolveDataDir } from '../../data-dir/default-dir.js'
import { HomeportClient } from './client.js'

/**
 * The Homeport a command has do its work, on the data directory named or resolved as everywhere
 * else; refused with what to do when none runs there.
 */
export async function requireRunning(values: { 'data-dir'?: string; token?: string }, then: string): Promise<{ client: HomeportClient; dataDir: string }> {
  const dataDir = resolveDataDir(values['data-dir'])
  const client = await HomeportClient.running(dataDir, values.token)
  if (!client) throw new Error(`No Homeport is running on ${dataDir}: start it (homeport serve), ${then}.`)
  return { client, dataDir }
}
