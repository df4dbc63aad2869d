import type { ModulePart } from '../../domain/archives/module-docs.js'
import { namespaceOf } from '../../domain/modules/module-rules.js'
import { repositoryUrl } from '../management/serializers/module-resources.js'
import type { Detail, Published } from '../../domain/modules/protocol-reads.js'
import type { VersionRecord } from '../../store/records.js'
import { terminalSafe } from '../../domain/core/notice.js'
import type { ProtocolDeprecation, ProtocolModule, ProtocolModuleDetail, ProtocolPart, ProtocolRequirements, ProtocolVersion } from '../../../shared/wire/modules.js'

/** A module at a version, as the protocol lists it. */
export function moduleObject(entry: Published, downloads: number): ProtocolModule {
  const { view, version, docs } = entry
  const namespace = namespaceOf(view)
  return {
    id: `${namespace}/${view.module.name}/${view.module.provider}/${version.version}`,
    owner: '',
    namespace,
    name: view.module.name,
    version: version.version,
    provider: view.module.provider,
    description: docs.description,
    // The repository the module comes from; a module uploaded through the API has none.
    source: repositoryUrl(view),
    published_at: version.publishedAt ?? version.updatedAt,
    downloads,
    verified: false
  }
}

/** HCP's `deprecation` of a version in protocol answers: its reason and link, or null. */
function deprecationObject(version: VersionRecord): ProtocolDeprecation | null {
  // terminalSafe: a reason kept before control characters were refused is still printed to a terminal.
  return version.deprecation ? { reason: terminalSafe(version.deprecation.reason), link: version.deprecation.link } : null
}

function partObject(part: ModulePart): ProtocolPart {
  return {
    path: part.path,
    name: part.path.split('/').pop() ?? '',
    readme: part.readme,
    empty: part.empty,
    inputs: part.inputs.map((input) => ({
      name: input.name,
      type: input.type,
      description: input.description,
      default: input.default,
      required: input.required
    })),
    outputs: part.outputs.map((output) => ({ name: output.name, description: output.description })),
    dependencies: part.dependencies.map((dependency) => ({ ...dependency })),
    provider_dependencies: part.providers.map((provider) => ({ ...provider })),
    resources: part.resources.map((resource) => ({ ...resource })),
    // Homeport's own (terraform-config-inspect's name): the part's `terraform { required_version }` constraints.
    required_core: [...part.requiredCore]
  }
}

/** The detail of a version: the module object with its documentation, providers and versions. */
export function detailObject(detail: Detail, downloads: number): ProtocolModuleDetail {
  return {
    ...moduleObject(detail, downloads),
    root: partObject(detail.docs.root),
    submodules: detail.docs.submodules.map(partObject),
    examples: detail.docs.examples.map(partObject),
    providers: detail.providers,
    versions: detail.versions,
    deprecation: deprecationObject(detail.version),
    // Homeport's own: the module's change log for the GUI's Changelog tab (Terraform reads none of the detail).
    changelog: detail.docs.changelog ?? ''
  }
}

function requirements(part: ModulePart): ProtocolRequirements {
  return {
    providers: part.providers.map(({ name, namespace, source, version }) => ({ name, namespace, source, version })),
    dependencies: part.dependencies.map((dependency) => ({ ...dependency }))
  }
}

/** One entry of the versions response: what Terraform needs to pick a version. */
export function versionEntry(entry: Published): ProtocolVersion {
  return {
    version: entry.version.version,
    root: requirements(entry.docs.root),
    submodules: entry.docs.submodules.map((part) => ({ path: part.path, ...requirements(part) })),
    deprecation: deprecationObject(entry.version)
  }
}
