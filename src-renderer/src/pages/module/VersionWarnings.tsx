import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../lib/session'
import { versionOptions, type ModuleAddress } from '../../features/modules/api'
import { WarningList } from '../../features/modules/WarningList'

/**
 * What ingest said of the version shown (a file that did not parse, with its line; no Terraform
 * files): at the top of its documentation, since the documentation below leaves those files out and
 * would otherwise look like a module with nothing in it.
 */
export function VersionWarnings({ address, version }: { address: ModuleAddress; version: string }) {
  const { client } = useSession()
  const record = useQuery({ ...versionOptions(client, address, version), enabled: address.registry === 'private' })
  const warnings = record.data?.data.attributes.warnings ?? []
  if (warnings.length === 0) return null
  return (
    <section aria-labelledby="version-warnings-heading">
      <h3 id="version-warnings-heading">
        {version} was published with {warnings.length === 1 ? 'a warning' : `${warnings.length} warnings`}: the documentation below leaves out what could not be read
      </h3>
      <WarningList warnings={warnings} />
    </section>
  )
}
