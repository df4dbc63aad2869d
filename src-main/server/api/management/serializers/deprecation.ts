import type { VersionDeprecation } from '../../../store/records.js'
import type { DeprecationAttributes } from '../../../../shared/wire/modules.js'

/** A deprecation in HCP's shape (`deprecated-status` and the rest), for module and provider versions alike. */
export function deprecationAttributes(deprecation: VersionDeprecation | null | undefined): DeprecationAttributes | null {
  return deprecation
    ? { 'deprecated-status': 'Deprecated', reason: deprecation.reason, link: deprecation.link, 'deprecated-by': deprecation.by, 'deprecated-at': deprecation.at }
    : null
}
