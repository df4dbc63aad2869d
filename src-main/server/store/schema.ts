import type { Migration } from './collection.js'

/**
 * The schema version every record file is written with. To change a record's shape: bump it,
 * and add the migration from the previous version below (migrations[n]: version n → n + 1).
 * Files written by an older Homeport are upgraded when the store loads them; files from a
 * newer one are refused.
 */
export const SCHEMA_VERSION = 1

export const MIGRATIONS: Record<number, Migration> = {}
