/**
 * A module's documentation, extracted the way HashiCorp's terraform-config-inspect does (the
 * library behind the public registry): computed once at ingest, stored beside the archive, and
 * read by the registry protocol and the GUI.
 */
export interface ModuleInput {
  name: string
  /** The type expression as written (`map(object({…}))`), or "" when none is given. */
  type: string
  description: string
  /** The default, JSON-encoded (`"\"us-east-1\""`, `"3"`), or "" for a required input, as the registry has it. */
  default: string
  required: boolean
  sensitive: boolean
}

export interface ModuleOutput {
  name: string
  description: string
  sensitive: boolean
}

export interface ModuleResource {
  name: string
  type: string
}

export interface ProviderRequirement {
  /** The local name (`aws`). */
  name: string
  namespace: string
  source: string
  /** Version constraints, joined with ", "; "" when none. */
  version: string
}

export interface ModuleDependency {
  name: string
  source: string
  version: string
}

export interface ModulePart {
  /** "" for the root module, else `modules/<name>` or `examples/<name>`. */
  path: string
  readme: string
  /** True when the folder has no Terraform files. */
  empty: boolean
  inputs: ModuleInput[]
  outputs: ModuleOutput[]
  resources: ModuleResource[]
  providers: ProviderRequirement[]
  dependencies: ModuleDependency[]
  /** `terraform { required_version }` constraints. */
  requiredCore: string[]
}

export interface ModuleDocs {
  /** The root README's first paragraph, as plain text: the module's description in listings. */
  description: string
  root: ModulePart
  submodules: ModulePart[]
  examples: ModulePart[]
  /** Files that did not parse, and the like: the version is still published. */
  warnings: string[]
  /** The root's CHANGELOG.md (or CHANGES.md, HISTORY.md), as Markdown; absent from documentation made before Homeport read it. */
  changelog?: string
}
