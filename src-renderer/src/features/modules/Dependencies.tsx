import { useQuery } from '@tanstack/react-query'
import { resolvePath } from '../../lib/markdown'
import { useSession } from '../../lib/session'
import { serverInfoOptions } from '../terraform/api'
import { TERRAFORM_REGISTRY } from '@shared/terraform-config'
import { moduleOptions, type ProtocolPart } from './api'
import { AppLink } from '../../lib/link'

type Dependency = ProtocolPart['dependencies'][number]

/**
 * The modules a part calls, each linked where it can be followed: a module of this registry (its
 * source on this Homeport's hostname) to its page, a folder of the same module (`../../modules/x`)
 * to that part, a public registry module to its page here where the organization curates it, else
 * to the public registry's page; any other source (git, a URL) is shown as written.
 */
export function Dependencies({ org, part, parts, onPart }: { org: string; part: ProtocolPart; parts: string[]; onPart: (path: string) => void }) {
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
                <Source org={org} dependency={dependency} from={part.path} parts={parts} hostname={info.data?.registryHostname} onPart={onPart} />
              </td>
              <td>{dependency.version || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function Source({ org, dependency, from, parts, hostname, onPart }: { org: string; dependency: Dependency; from: string; parts: string[]; hostname?: string; onPart: (path: string) => void }) {
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
  const published = publicAddress(source)
  if (published) return <PublicSource org={org} source={source} address={published} version={dependency.version} />
  return <span className="break">{source}</span>
}

/** A module of the public registry: its page in the organization where it is curated here, else the public registry's own page. */
function PublicSource({ org, source, address, version }: { org: string; source: string; address: { namespace: string; name: string; provider: string }; version: string }) {
  const { client } = useSession()
  const curated = useQuery({ ...moduleOptions(client, { org, registry: 'public', ...address }), refetchInterval: false })
  if (curated.isSuccess) return <AppLink to={{ page: 'module', org, registry: 'public', ...address }}>{source}</AppLink>
  // An exact version has its own page there; a constraint (~> 5.0) does not.
  const exact = /^\d+\.\d+\.\d+$/.test(version.trim()) ? `/${version.trim()}` : ''
  return (
    <a className="break" href={`https://${TERRAFORM_REGISTRY}/modules/${address.namespace}/${address.name}/${address.provider}${exact}`} target="_blank" rel="noreferrer noopener">
      {source} <span className="muted">(public registry)</span>
    </a>
  )
}

/** `[registry.terraform.io/]<namespace>/<name>/<provider>`, the public registry's address of a module (a submodule's `//part` aside), or undefined. */
function publicAddress(source: string): { namespace: string; name: string; provider: string } | undefined {
  const segments = source.split('//')[0]!.split('/')
  if (segments.length === 4 && segments[0]!.toLowerCase() === TERRAFORM_REGISTRY) segments.shift()
  if (segments.length !== 3 || !segments.every((segment) => /^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(segment))) return undefined
  const [namespace, name, provider] = segments as [string, string, string]
  return { namespace, name, provider }
}

/** `<hostname>/<namespace>/<name>/<provider>[//<part>]` on this registry, or undefined. */
function registryAddress(source: string, hostname: string): { namespace: string; name: string; provider: string; part: string } | undefined {
  const [address = '', part = ''] = source.split('//')
  const segments = address.split('/')
  if (segments.length !== 4 || segments[0]!.toLowerCase() !== hostname.toLowerCase()) return undefined
  const [, namespace, name, provider] = segments as [string, string, string, string]
  return { namespace, name, provider, part: part.replace(/\/+$/, '') }
}
