/** Upgrades a record written by an older schema version to the current one. */
export type Migration = (record: Record<string, unknown>) => Record<string, unknown>

/**
 * Each collection's schema version and its migrations. To change a record's shape: bump the
 * collection's version and add the migration from the previous one (migrations[n]: version n →
 * n + 1). Files written by an older Homeport are upgraded when the store loads them; files
 * from a newer one are refused.
 */
export interface Schema {
  version: number
  migrations: Record<number, Migration>
}

const UNCHANGED: Schema = { version: 1, migrations: {} }

export const SCHEMAS = {
  installation: UNCHANGED,
  organizations: {
    version: 6,
    migrations: {
      // 6: terraform login approvals waiting for their code's exchange.
      5: (record) => ({ ...record, loginCodes: [] }),
      // 5: tokens obtained with terraform login.
      4: (record) => ({ ...record, cliTokens: [] }),
      // 4: the organization token, and token expiry.
      3: (record) => ({
        ...record,
        token: null,
        teams: (record.teams as Array<{ token: object | null }>).map((team) => ({ ...team, token: team.token ? { ...team.token, expiredAt: null } : null }))
      }),
      // 3: who vouched for a VCS connection. Nobody knows for older ones: they must lie in --git-roots.
      2: (record) => ({
        ...record,
        vcsConnections: (record.vcsConnections as Array<Record<string, unknown>>).map((connection) => ({ ...connection, grantedBy: 'git-roots' }))
      }),
      // 2: VCS connections (oauth-clients and their tokens).
      1: (record) => ({ ...record, vcsConnections: [] })
    }
  },
  modules: {
    version: 5,
    migrations: {
      // 5: deprecation and revocation of versions.
      4: (record) => ({
        ...record,
        versions: (record.versions as Array<Record<string, unknown>>).map((version) => ({ ...version, deprecation: null, revocation: null }))
      }),
      // 4: upload links take archives until the version is published, so no generation is kept.
      3: (record) => ({
        ...record,
        versions: (record.versions as Array<Record<string, unknown>>).map(({ linkGeneration, ...version }) => version)
      }),
      // 3: upload links derived from a generation, no longer stored.
      2: (record) => ({
        ...record,
        versions: (record.versions as Array<Record<string, unknown>>).map(({ upload, ...version }) => ({
          ...version,
          linkGeneration: (upload as { usedAt?: string | null } | null)?.usedAt ? 1 : 0
        }))
      }),
      // 2: modules published from a git repository.
      1: (record) => ({
        ...record,
        vcsRepo: null,
        versions: (record.versions as Array<Record<string, unknown>>).map((version) => ({ ...version, tag: null }))
      })
    }
  },
  downloads: {
    version: 2,
    migrations: {
      // 2: who downloaded each version.
      1: (record) => ({ ...record, consumers: {} })
    }
  },
  upstreamCache: UNCHANGED,
  providers: UNCHANGED,
  gpgKeys: UNCHANGED,
  providerMirror: UNCHANGED,
  gatePolicies: UNCHANGED,
  releaseSightings: UNCHANGED,
  gateRequests: UNCHANGED,
  providerDocs: UNCHANGED,
  users: UNCHANGED,
  auditTrail: {
    version: 2,
    migrations: {
      // 2: events recorded by the domain. An older event's request path goes: it could be an upload link's, a credential.
      1: ({ request, actor, resource, ...record }) => ({
        ...record,
        actor: { ...(actor as object), id: (actor as { id: string | null; kind: string }).id ?? (actor as { kind: string }).kind },
        permission: 'unknown',
        outcome: 'done',
        resource: { ...(resource as { type: string; id: string }), name: (resource as { id: string }).id },
        request: { id: (request as { id: string }).id, ip: (request as { ip: string }).ip }
      })
    }
  }
} satisfies Record<string, Schema>
