import { useQuery } from '@tanstack/react-query'
import { resolvePath } from '../../lib/markdown'
import { useSession } from '../../lib/session'
import { serverInfoOptions } from '../terraform/api'
import type { ProtocolPart } from './api'
import { AppLink } from '../../lib/link'

type Dependency = ProtocolPart['dependencies'][number]

/**
 * The modules a part calls, each linked where it can be followed: a module of this registry (its
 * source on this Homeport's hostname) to its page, a folder of the same module (`../../modules/x`)
 * to that part; any other source (the public registry, git, a URL) is shown as written.
 */
export function Dependencies({ part, parts, onPart }: { part: ProtocolPart; parts: string[]; onPart: (path: string) => void }) {
  const { client } = useSession()
  const info = useQuery(serverInfoOptions(client))
  if (part.dependencies.length === 0) return <p className="muted">None.</p>
  return (
    <div className="table-scroll">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Source</th>
            <th scope="col">Version</th>
          </tr>
        </thead>
        <tbody>
          {part.dependencies.map((dependency) => (
            <tr key={dependency.name}>
              <td>
                <code>{dependency.name}</code>
              </td>
              <td>
                <Source dependency={dependency} from={part.path} parts={parts} hostname={info.data?.registryHostname} onPart={onPart} />
              </td>
              <td>{dependency.version || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function Source({ dependency, from, parts, hostname, onPart }: { dependency: Dependency; from: string; parts: string[]; hostname?: string; onPart: (path: string) => void }) {
  const { source } = dependency
  const local = /^\.\.?\//.test(source) ? resolvePath(from, source) : undefined
  if (local !== undefined && parts.includes(local)) {
    return (
      <button type="button" className="link" onClick={() => onPart(local)}>
        {source}
      </button>
    )
  }
  const registry = hostname ? registryAddress(source, hostname) : undefined
  if (registry) {
    const { namespace, name, provider, part } = registry
    // A private module's namespace is its organization.
    const query = part ? new URLSearchParams({ part }).toString() : undefined
    return <AppLink to={{ page: 'module', org: namespace, registry: 'private', namespace, name, provider, ...(query ? { query } : {}) }}>{source}</AppLink>
  }
  return <span className="break">{source}</span>
}

/** `<hostname>/<namespace>/<name>/<provider>[//<part>]` on this registry, or undefined. */
function registryAddress(source: string, hostname: string): { namespace: string; name: string; provider: string; part: string } | undefined {
  const [address = '', part = ''] = source.split('//')
  const segments = address.split('/')
  if (segments.length !== 4 || segments[0]!.toLowerCase() !== hostname.toLowerCase()) return undefined
  const [, namespace, name, provider] = segments as [string, string, string, string]
  return { namespace, name, provider, part: part.replace(/\/+$/, '') }
}
