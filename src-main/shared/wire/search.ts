/** Homeport's own `search-hits` resource: an organization, module or provider a search found (the GUI's search). */
export interface SearchHitAttributes {
  kind: 'organization' | 'module' | 'provider' | 'provider-doc'
  /** The organization it belongs to (the organization itself, for one). */
  organization: string
  /** How Terraform names it: `homeport.localhost/acme/vpc/aws`, `registry.terraform.io/hashicorp/null`; the name, for an organization. */
  address: string
  /** A module's registry (`private`, `public`) or a provider's (`private`, `mirror`); null for an organization. */
  registry: string | null
  /** A module's namespace, name and provider, to link to its page; null for the rest. */
  module: { namespace: string; name: string; provider: string } | null
  /**
   * A provider doc's subject (`aws_s3_bucket`), its category, slug and version, and its provider's
   * namespace and type (under `hostname`, the public registry's name for a mirrored one), to link to
   * its page; null for the rest.
   */
  doc: { name: string; category: string; slug: string; version: string; hostname: string; namespace: string; type: string } | null
  description: string
  /** Where a word of the query was found (name, description, inputs…), best first. */
  matched: string[]
}
