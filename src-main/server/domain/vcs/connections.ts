import { readdir, realpath, stat } from 'node:fs/promises'
import { basename, isAbsolute, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { OrganizationRecord, VcsConnectionRecord } from '../../store/records.js'
import { BY_ORGANIZATION, VCS_CONNECTION_ID, VCS_TOKEN_ID, type Store } from '../../store/port.js'
import { type Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import { ForbiddenError, InvalidInputError, NotFoundError } from '../core/errors.js'
import { newId, now } from '../core/ids.js'
import type { AuditResource, AuditTrailService } from '../organizations/audit-trail.js'
import type { OrganizationService } from '../organizations/organizations.js'

/** Homeport's own VCS provider kind: plain git, on this machine or reachable from it. */
export const GIT_PROVIDER = 'git'

export interface VcsConnectionInput {
  name?: string
  serviceProvider?: string
  /** A folder of repositories, or a base git URL (`file://`, `ssh://`, `https://`). */
  httpUrl?: string
}

export interface ConnectionRef {
  org: OrganizationRecord
  connection: VcsConnectionRecord
}

const IDENTIFIER_SEGMENT = /^[A-Za-z0-9_.-]+$/
const REMOTE_URL = /^(https?|ssh|git):\/\/[^\s]+$/

/**
 * VCS connections, as a subset of HCP Terraform's OAuth clients and tokens: each connection has
 * one token, whose id (`ot-…`) a module's `vcs-repo.oauth-token-id` names. The git credentials
 * are the user's own (their ssh agent, credential helper, or file permissions): Homeport stores
 * none.
 */
export class VcsConnectionService {
  constructor(
    private readonly store: Store,
    private readonly organizations: OrganizationService,
    private readonly audit: AuditTrailService,
    /** Folders under which owners may connect repositories (`--git-roots`). */
    private readonly gitRoots: readonly string[] = []
  ) {}

  /** Teams that publish modules see the connections (they need their token ids); owners manage them. */
  async list(caller: Caller, orgName: string): Promise<ConnectionRef[]> {
    const org = await this.organizations.read(caller, orgName)
    if (!authorize(caller, 'use vcs connection', org)) throw new NotFoundError(`organization "${orgName}" has no VCS connections you can see`)
    return org.vcsConnections.map((connection) => ({ org, connection }))
  }

  async create(caller: Caller, orgName: string, input: VcsConnectionInput): Promise<ConnectionRef> {
    const org = await this.organizations.forChange(caller, orgName, 'manage vcs connections', 'create', { type: 'oauth-client', id: input.name ?? '', name: `${orgName}/${input.name ?? input.httpUrl ?? ''}` })
    if (input.serviceProvider !== undefined && input.serviceProvider !== GIT_PROVIDER) {
      throw new InvalidInputError(
        `Homeport connects to git repositories itself: service-provider must be "${GIT_PROVIDER}", not "${input.serviceProvider}".`,
        'serviceProvider'
      )
    }
    if (!input.httpUrl) throw new InvalidInputError('A connection needs http-url: a folder of repositories, or a base git URL.', 'httpUrl')
    // Homeport reaches a repository as the user it runs as, with that user's files, ssh agent and
    // credential helpers: only the site admin may point it anywhere; owners stay inside --git-roots.
    const grantedBy = authorize(caller, 'connect any repository') ? 'site-admin' : 'git-roots'
    const baseUrl = grantedBy === 'site-admin' ? await normalizeBase(input.httpUrl) : await this.folderInRoots(input.httpUrl)
    const connection: VcsConnectionRecord = {
      id: newId('oc'),
      name: input.name?.trim() || basename(baseUrl.replace(/\/+$/, '')) || baseUrl,
      baseUrl,
      createdAt: now(),
      tokenId: newId('ot'),
      grantedBy
    }
    const { record } = await this.store.organizations.update(org.id, (draft) => {
      draft.vcsConnections.push(connection)
    })
    await this.audit.done({ author: caller, permission: 'manage vcs connections', org: record, action: 'create', resource: connectionResource(record, connection) })
    return { org: record, connection }
  }

  async read(caller: Caller, connectionId: string): Promise<ConnectionRef> {
    return this.find(caller, VCS_CONNECTION_ID, connectionId)
  }

  async readByToken(caller: Caller, tokenId: string): Promise<ConnectionRef> {
    return this.find(caller, VCS_TOKEN_ID, tokenId)
  }

  /** Deletes a connection (and so its token); refused while modules publish through it. */
  async delete(caller: Caller, ref: ConnectionRef): Promise<void> {
    const change = { permission: 'manage vcs connections', org: ref.org, action: 'destroy', resource: connectionResource(ref.org, ref.connection) } as const
    await this.audit.check(caller, change, () => new NotFoundError(`VCS connection "${ref.connection.id}" not found`))
    const users = (await this.store.modules.listBy(BY_ORGANIZATION, ref.org.id)).filter(
      (module) => module.vcsRepo?.oauthTokenId === ref.connection.tokenId
    )
    if (users.length > 0) {
      throw new InvalidInputError(
        `${users.length === 1 ? '1 module publishes' : `${users.length} modules publish`} through this connection (${users.map((m) => m.name).join(', ')}); delete ${users.length === 1 ? 'it' : 'them'} first.`
      )
    }
    await this.store.organizations.update(ref.org.id, (draft) => {
      draft.vcsConnections = draft.vcsConnections.filter((connection) => connection.id !== ref.connection.id)
    })
    await this.audit.done({ ...change, author: caller })
  }

  /**
   * The repositories a connection's folder holds, as identifiers: `<owner>/<repository>` for a folder
   * of owners' folders, `<folder>/<repository>` for those the folder holds itself (each a folder with
   * a `.git` inside, or a bare `<name>.git`), for the GUI to offer instead of a name
   * to type; at most `limit`, by name. Undefined for a remote base URL, which git cannot list.
   * Links are not followed: what the folder holds is what is listed.
   */
  async repositories(caller: Caller, ref: ConnectionRef, limit = 1000): Promise<string[] | undefined> {
    if (!authorize(caller, 'use vcs connection', ref.org)) throw new NotFoundError(`VCS connection "${ref.connection.id}" not found`)
    if (!ref.connection.baseUrl.startsWith('file:')) return undefined
    if (ref.connection.grantedBy === 'git-roots' && !(await this.insideRoots(ref.connection.baseUrl))) return []
    const base = fileURLToPath(ref.connection.baseUrl)
    const found: string[] = []
    // A folder that holds repositories itself (`repos/terraform-aws-vpc`): each is `<folder>/<repository>`.
    const folder = basename(base)
    if (IDENTIFIER_SEGMENT.test(folder)) {
      for (const repository of await folders(base)) {
        if (found.length >= limit) return found
        if (await isRepository(join(base, repository))) found.push(`${folder}/${repository.replace(/\.git$/, '')}`)
      }
    }
    // A folder of owners' folders (`repos/platform/terraform-aws-vpc`): each is `<owner>/<repository>`.
    for (const owner of await folders(base)) {
      if (!IDENTIFIER_SEGMENT.test(owner)) continue
      for (const repository of await folders(join(base, owner))) {
        if (found.length >= limit) return found
        const path = join(base, owner, repository)
        if (await isRepository(path)) found.push(`${owner}/${repository.replace(/\.git$/, '')}`)
      }
    }
    return found
  }

  /** The connection of `org` whose token is `tokenId`. */
  connectionFor(org: OrganizationRecord, tokenId: string): VcsConnectionRecord | undefined {
    return org.vcsConnections.find((connection) => connection.tokenId === tokenId)
  }

  /**
   * The git URL of `identifier` (`<org>/<repo>`, or `<org>/<project>/_git/<repo>`) under the
   * connection. Every segment is a plain name, and a local path must stay inside the
   * connection's folder once links are resolved: `../` or a symlink cannot escape it.
   */
  async repositoryUrl(connection: VcsConnectionRecord, identifier: string): Promise<string> {
    const segments = identifier.split('/')
    const valid =
      (segments.length === 2 || (segments.length === 4 && segments[2] === '_git')) &&
      segments.every((segment) => IDENTIFIER_SEGMENT.test(segment) && segment !== '.' && segment !== '..' && !segment.startsWith('-'))
    if (!valid) {
      throw new InvalidInputError(
        `"${identifier}" is not a repository identifier: use <organization>/<repository> (or <organization>/<project>/_git/<repository>), names only.`,
        'vcsRepo.identifier'
      )
    }
    if (connection.grantedBy === 'git-roots' && !(await this.insideRoots(connection.baseUrl))) {
      throw new InvalidInputError(
        'This VCS connection names a location outside the folders this Homeport lets organizations use (--git-roots); the site admin can connect it again.',
        'vcsRepo.oauthTokenId'
      )
    }
    if (!connection.baseUrl.startsWith('file:')) return `${connection.baseUrl.replace(/\/+$/, '')}/${segments.join('/')}`
    const base = await realpath(fileURLToPath(connection.baseUrl))
    // `<folder>/<repository>` where the connection's folder holds repositories itself (see `repositories`).
    const flat = segments.length === 2 && segments[0] === basename(fileURLToPath(connection.baseUrl)) ? [join(base, segments[1]!), `${join(base, segments[1]!)}.git`] : []
    for (const candidate of [join(base, ...segments), `${join(base, ...segments)}.git`, ...flat]) {
      const real = await realpath(candidate).catch(() => undefined)
      if (!real) continue
      if (real === base || !isWithin(base, real)) {
        throw new InvalidInputError(`"${identifier}" leads outside the connection's folder.`, 'vcsRepo.identifier')
      }
      return pathToFileURL(real).toString()
    }
    throw new InvalidInputError(`There is no repository "${identifier}" in ${fileURLToPath(connection.baseUrl)}.`, 'vcsRepo.identifier')
  }

  /**
   * An owner's connection: a local folder inside one of the git roots, as a `file://` URL. Where
   * it is not, the answer is the same whether the folder exists or not (no existence oracle).
   */
  private async folderInRoots(value: string): Promise<string> {
    const outside = new ForbiddenError(
      this.gitRoots.length === 0
        ? 'Only the site admin can create VCS connections on this Homeport: it reaches repositories with this machine’s files and git credentials. Ask the operator to allow folders with --git-roots.'
        : `Organization owners can connect only folders inside ${this.gitRoots.join(', ')} (--git-roots); remote URLs and other folders need the site admin.`
    )
    if (REMOTE_URL.test(value.trim())) throw outside
    let path: string
    try {
      path = value.trim().startsWith('file:') ? fileURLToPath(value.trim()) : value.trim()
    } catch {
      throw outside
    }
    if (!isAbsolute(path) || !(await this.insideRoots(pathToFileURL(resolve(path)).toString(), false))) throw outside
    const base = await normalizeBase(path)
    // Links resolved, it must still be inside.
    if (!(await this.insideRoots(base))) throw outside
    return base
  }

  /** Whether a `file://` location lies inside a git root (links resolved when `real`). */
  private async insideRoots(baseUrl: string, real = true): Promise<boolean> {
    if (!baseUrl.startsWith('file:')) return false
    const path = fileURLToPath(baseUrl)
    const target = real ? await realpath(path).catch(() => undefined) : resolve(path)
    if (!target) return false
    for (const root of this.gitRoots) {
      const base = real ? await realpath(root).catch(() => undefined) : resolve(root)
      if (base && isWithin(base, target)) return true
    }
    return false
  }

  private async find(caller: Caller, index: string, id: string): Promise<ConnectionRef> {
    const org = await this.store.organizations.findBy(index, id)
    const connection = org?.vcsConnections.find((candidate) => candidate.id === id || candidate.tokenId === id)
    if (!org || !connection || !authorize(caller, 'use vcs connection', org)) throw new NotFoundError(`VCS connection "${id}" not found`)
    return { org, connection }
  }
}

/** The folders directly in `path` (not links), by name; none when it cannot be read. */
async function folders(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => [])
  return entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort()
}

/** A working tree (with `.git`) or a bare repository (with `HEAD` and `objects/`). */
async function isRepository(path: string): Promise<boolean> {
  const exists = (name: string) => stat(join(path, name)).then(() => true, () => false)
  return (await exists('.git')) || ((await exists('HEAD')) && (await exists('objects')))
}

function isWithin(base: string, path: string): boolean {
  const inside = relative(base, path)
  return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))
}

/** A folder path becomes a `file://` URL (it must be a folder); remote URLs are kept as given. */
async function normalizeBase(value: string): Promise<string> {
  const trimmed = value.trim()
  if (REMOTE_URL.test(trimmed)) return trimmed.replace(/\/+$/, '')
  let path: string
  try {
    path = trimmed.startsWith('file:') ? fileURLToPath(trimmed) : trimmed
  } catch {
    throw new InvalidInputError(`"${value}" is neither a folder nor a git URL (file://, ssh://, https://).`, 'httpUrl')
  }
  if (!isAbsolute(path)) throw new InvalidInputError(`"${value}" must be an absolute folder path or a git URL.`, 'httpUrl')
  const isFolder = await stat(path).then(
    (stats) => stats.isDirectory(),
    () => false
  )
  if (!isFolder) throw new InvalidInputError(`There is no folder ${path} on this machine.`, 'httpUrl')
  return pathToFileURL(await realpath(path)).toString()
}

function connectionResource(org: OrganizationRecord, connection: VcsConnectionRecord): AuditResource {
  return { type: 'oauth-client', id: connection.id, name: `${org.name}/${connection.name}` }
}
