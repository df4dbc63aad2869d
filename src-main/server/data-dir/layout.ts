/**
 * Every name Homeport gives a file or folder in its data directory, declared once. The record
 * folders (`organizations/`, `modules/`, `audit-trail/`, …) are the collections' own names
 * (store/engine/collections.ts); everything else is here.
 *
 *     <data-dir>/
 *       homeport.lock          the process that owns the directory (data-dir/lock.ts)
 *       admin-token            the site admin's token, unless HOMEPORT_ADMIN_TOKEN gives one
 *       server.json            where the running server listens, for the CLI's commands
 *       backup-key             signs this installation's backups; in none of them
 *       tls/                   the local CA and the server's certificate (--tls)
 *       archives/ab/<sha256>.tar.gz (+ .docs.json)   archives by content (the file store)
 *       uploads/               archives being received; emptied at start
 *       backups/               a backup being staged; emptied at start
 *       vcs/                   bare mirrors of git repositories (a cache)
 *       bundles/               bundles being written or read; emptied at start
 *       archive-cache/<sha256> with PostgreSQL: this replica's checked copies of archives (a cache)
 *       <collection>/<id>.json one record each (the file store)
 */
export const LOCK_FILE = 'homeport.lock'
export const ADMIN_TOKEN_FILE = 'admin-token'
export const SERVER_FILE = 'server.json'
export const BACKUP_KEY_FILE = 'backup-key'
export const TLS_DIR = 'tls'
/** The local CA's key: it never leaves the data directory (backups leave it out). */
export const CA_KEY_FILE = 'ca.key'
export const CA_CERT_FILE = 'ca.crt'
export const SERVER_CERT_FILE = 'server.crt'
export const SERVER_KEY_FILE = 'server.key'
export const ARCHIVES_DIR = 'archives'
export const UPLOADS_DIR = 'uploads'
export const BACKUPS_DIR = 'backups'
export const MIRRORS_DIR = 'vcs'
export const BUNDLES_DIR = 'bundles'
export const ARCHIVE_CACHE_DIR = 'archive-cache'
/** A file written and removed at start to learn whether the directory takes writes. */
export const writeProbeFile = (pid: number): string => `.write-probe-${pid}`
