/** The kinds of provider documentation, as the public registry's docs API names its categories, in the order its navigation shows them. */
export const DOC_CATEGORIES = ['overview', 'guides', 'resources', 'data-sources', 'ephemeral-resources', 'functions', 'actions', 'list-resources'] as const

export type DocCategory = (typeof DOC_CATEGORIES)[number]

/** What the registry calls each category in its navigation. */
export const CATEGORY_LABELS: Record<DocCategory, string> = {
  overview: 'Overview',
  guides: 'Guides',
  resources: 'Resources',
  'data-sources': 'Data Sources',
  'ephemeral-resources': 'Ephemeral Resources',
  functions: 'Functions',
  actions: 'Actions',
  'list-resources': 'List Resources'
}
