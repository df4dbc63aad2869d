import type { ProtocolPart } from '../../features/modules/api'

/** The documentation's tabs, in order; each is a search parameter (`tab`), so a view of a module is a link. */
export type Section = 'readme' | 'inputs' | 'outputs' | 'resources' | 'providers' | 'dependencies' | 'changes' | 'changelog' | 'files'
export const SECTIONS: Array<{ id: Section; label: string }> = [
  { id: 'readme', label: 'Readme' },
  { id: 'inputs', label: 'Inputs' },
  { id: 'outputs', label: 'Outputs' },
  { id: 'resources', label: 'Resources' },
  { id: 'providers', label: 'Providers' },
  { id: 'dependencies', label: 'Dependencies' },
  { id: 'changes', label: 'Changes' },
  { id: 'changelog', label: 'Changelog' },
  { id: 'files', label: 'Files' }
]

/** The tabs that list entries of the part shown, and show how many. */
export const COUNTED: ReadonlySet<Section> = new Set(['inputs', 'outputs', 'resources', 'providers', 'dependencies'])

/** How many entries a tab lists, for its count. */
export function countOf(part: ProtocolPart, section: Section): number {
  switch (section) {
    case 'inputs':
      return part.inputs.length
    case 'outputs':
      return part.outputs.length
    case 'resources':
      return part.resources.length
    case 'providers':
      return part.provider_dependencies.length
    case 'dependencies':
      return part.dependencies.length
    default:
      return 0
  }
}
