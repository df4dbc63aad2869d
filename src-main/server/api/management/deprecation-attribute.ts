import type { DeprecationChange } from '../../domain/core/notice.js'
import type { Attributes } from '../../http/jsonapi.js'

/**
 * A `deprecation` attribute in HCP's module version lifecycle shape: `{"deprecated-status": "Deprecated",
 * "reason", "link"}`, or `{"deprecated-status": "Undeprecated"}`; for module and provider versions alike.
 */
export function deprecationOf(deprecation: Attributes): DeprecationChange {
  const status = deprecation.string('deprecated-status')
  if (status === 'Deprecated') return { deprecation: status, reason: deprecation.string('reason') ?? '', link: deprecation.nullableString('link') ?? null }
  if (status === 'Undeprecated') return { deprecation: status }
  throw deprecation.invalid('deprecated-status', 'deprecated-status is Deprecated or Undeprecated.')
}
