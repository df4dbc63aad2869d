/**
 * The `required_providers` block a provider page (and the assistant's `get_provider`) offers to copy:
 * the provider's source and a pessimistic constraint on its version's minor (`~> 5.2` for 5.2.1), which
 * takes that version and its later patches and minors, never a new major.
 */
export function requiredProvidersBlock({ source, version }: { source: string; version: string }): string {
  const type = source.split('/').pop() ?? source
  const minor = version.split(/[-+]/, 1)[0]!.split('.').slice(0, 2).join('.')
  return `terraform {\n  required_providers {\n    ${type} = {\n      source  = "${source}"\n      version = "~> ${minor}"\n    }\n  }\n}\n`
}
