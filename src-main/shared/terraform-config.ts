/** The hostname Terraform sources use by default: never looked up in DNS, thanks to the host block. */
export const DEFAULT_REGISTRY_HOSTNAME = 'homeport.localhost'

export interface TerraformConfigInput {
  /** What the user writes in `source` (`<hostname>/<org>/<name>/<provider>`); it needs a dot. */
  hostname: string
  /** Where Homeport listens, as Terraform reaches it (`http://127.0.0.1:4780`). */
  serverUrl: string
  /** The token for the `credentials` blocks; none for a configuration that `terraform login` completes. */
  token?: string
  /**
   * Public registry hosts to point at Homeport as well (`registry.terraform.io`), so that an
   * unmodified configuration's public modules and providers come from Homeport's mirror.
   */
  publicHosts?: string[]
}

/** Terraform's and OpenTofu's public registries, as configurations and lock files name them. */
export const TERRAFORM_REGISTRY = 'registry.terraform.io'
export const OPENTOFU_REGISTRY = 'registry.opentofu.org'

/** The public registry hosts the air-gapped configuration points at Homeport: Terraform's and OpenTofu's defaults. */
export const PUBLIC_REGISTRY_HOSTS = [TERRAFORM_REGISTRY, OPENTOFU_REGISTRY]

/** Where Homeport serves each public registry's mirror: its `modules/` and `providers/` protocols under this prefix. */
export const PUBLIC_MIRROR_PREFIXES: Readonly<Record<string, string>> = {
  [TERRAFORM_REGISTRY]: '/api/registry/public/v1',
  [OPENTOFU_REGISTRY]: '/api/registry/opentofu/v1'
}

const HOSTNAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+(?::\d{1,5})?$/

/** Whether Terraform accepts `hostname` as a registry host: lowercase DNS labels with a dot, an optional port. */
export function isRegistryHostname(hostname: string): boolean {
  return HOSTNAME.test(hostname)
}

/** What a token may hold: Homeport's are base64url, HCP's `<id>.atlasv1.<secret>`; nothing that could end an HCL string. */
const TOKEN = /^[A-Za-z0-9._~+/=-]{1,1024}$/

/**
 * Why a configuration cannot be written from these values, or undefined when it can: the hostname a
 * registry host, the server URL an http(s) origin alone (no path, query or credentials), the token
 * a token's characters. Every value then goes into the file as an HCL string (`hcl`) as well: what
 * a command-line flag or an environment variable says never becomes a block of its own.
 */
export function configurationProblem({ hostname, serverUrl, token }: TerraformConfigInput): string | undefined {
  if (!isRegistryHostname(hostname)) return `"${printable(hostname)}" is not a registry hostname: lowercase DNS labels with a dot (Terraform requires it), like homeport.localhost.`
  let url: URL | undefined
  try {
    url = new URL(serverUrl)
  } catch {
    url = undefined
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || serverUrl.replace(/\/+$/, '').toLowerCase() !== url.origin.toLowerCase()) {
    return `"${printable(serverUrl)}" is not the server's URL: give its origin alone, like http://127.0.0.1:4780.`
  }
  if (token !== undefined && !TOKEN.test(token)) return 'The token holds characters no Homeport or HCP Terraform token has: copy it again, whole and alone.'
  return undefined
}

/** A value as an HCL string's contents: quotes, backslashes and line breaks escaped, and `${` and `%{` so that they are not templates. */
function hcl(value: string): string {
  return JSON.stringify(value).slice(1, -1).replace(/\$\{/g, () => '$${').replace(/%\{/g, '%%{')
}

/** Text for an error message: control characters shown, not obeyed. */
function printable(text: string): string {
  return JSON.stringify(text.slice(0, 200)).slice(1, -1)
}

function checked(input: TerraformConfigInput): void {
  const problem = configurationProblem(input)
  if (problem) throw new Error(problem)
}

/**
 * The Terraform CLI configuration that points a registry hostname at this Homeport: a `host`
 * block for its modules, providers and `terraform login` (so Terraform skips HTTPS discovery and
 * talks to Homeport directly, over plain HTTP if need be) and a `credentials` block with the token.
 * With no token, it is the configuration for `terraform login` instead: no `credentials` block (login
 * refuses a host whose credentials are written by hand), and the token login saves is used.
 */
export function terraformCliConfig({ hostname, serverUrl, token, publicHosts = [] }: TerraformConfigInput): string {
  checked({ hostname, serverUrl, token })
  const header = token
    ? `# Use it with TF_CLI_CONFIG_FILE=<this file>, or copy these blocks into ~/.terraformrc.
# It holds an API token: keep it private.`
    : `# For terraform login: keep it in ~/.terraform.d (Terraform reads every *.tfrc there) with
# TF_CLI_CONFIG_FILE unset, run terraform login ${hostname}, and the token it saves is used.`
  return `# Terraform CLI configuration for Homeport (${serverUrl}).
${header}

${hostBlocks({ hostname, serverUrl, token, publicHosts })}`
}

/** How OpenTofu installs providers from Homeport: the registry protocol, the provider network mirror, or the OCI mirror. */
export type OpenTofuInstall = 'registry' | 'network-mirror' | 'oci'

export const OPENTOFU_INSTALLS: ReadonlyArray<{ install: OpenTofuInstall; label: string }> = [
  { install: 'registry', label: 'Registry protocol' },
  { install: 'network-mirror', label: 'Network mirror (HTTPS)' },
  { install: 'oci', label: 'OCI mirror (HTTPS)' }
]

export interface OpenTofuConfigInput extends Required<Pick<TerraformConfigInput, 'hostname' | 'serverUrl' | 'token'>> {
  install: OpenTofuInstall
  /** Public providers and modules from this Homeport as well (its mirror), and nothing from the internet. */
  airGapped: boolean
  /**
   * Online, the public registries' providers through Homeport's mirror too (pulled through, kept, under
   * its gate); their modules still come direct. Implied by `airGapped`.
   */
  mirrorPublic?: boolean
}

/** Why an OpenTofu configuration cannot be written for this server, or undefined when it can. */
export function openTofuConfigProblem({ install, serverUrl }: Pick<OpenTofuConfigInput, 'install' | 'serverUrl'>): string | undefined {
  if (install !== 'registry' && !serverUrl.startsWith('https:')) {
    return `OpenTofu reads ${install === 'oci' ? 'an OCI registry' : 'a network mirror'} over HTTPS only: start Homeport with --tls (or your own certificate), and trust its ca.crt.`
  }
  return undefined
}

/**
 * The OpenTofu CLI configuration (a `.tofurc`) for this Homeport: the same `host` and `credentials`
 * blocks as Terraform's for modules (OpenTofu reads them alike), and, for the mirrors, a
 * `provider_installation` block: the private registry's providers (and with `airGapped` or
 * `mirrorPublic`, the public registries' too) from Homeport's network mirror or its OCI face, everything
 * else direct (none when air-gapped). The OCI mirror gets `oci_credentials`: OpenTofu sends OCI registries no other kind.
 */
export function openTofuCliConfig(input: OpenTofuConfigInput): string {
  const { hostname, serverUrl, token, install, airGapped, mirrorPublic = false } = input
  checked(input)
  const problem = openTofuConfigProblem(input)
  if (problem) throw new Error(problem)
  const base = hcl(serverUrl.replace(/\/+$/, ''))
  const serverHost = hcl(new URL(serverUrl).host)
  const publicHosts = airGapped ? PUBLIC_REGISTRY_HOSTS : []
  const mirrored = [hostname, ...(airGapped || mirrorPublic ? PUBLIC_REGISTRY_HOSTS : [])].map((host) => `"${hcl(host)}/*/*"`).join(', ')
  const direct = airGapped ? '' : `\n  direct {\n    exclude = [${mirrored}]\n  }`
  const installation =
    install === 'network-mirror'
      ? `
provider_installation {
  network_mirror {
    url     = "${base}/api/registry/provider-mirror/v1/"
    include = [${mirrored}]
  }${direct}
}
${serverHost === hostname ? '' : `\ncredentials "${serverHost}" {\n  token = "${hcl(token)}"\n}\n`}`
      : install === 'oci'
        ? `
provider_installation {
  oci_mirror {
    repository_template = "${serverHost}/providers/\${hostname}/\${namespace}/\${type}"
    include             = [${mirrored}]
  }${direct}
}

# OpenTofu logs in to OCI registries by the challenge: any user name, a Homeport token as the password.
oci_credentials "${serverHost}" {
  username = "homeport"
  password = "${hcl(token)}"
}
`
        : ''
  const modules =
    install === 'oci' ? `\n# Modules over OCI too: source = "oci://${serverHost}/modules/<organization>/<name>/<provider>?tag=<version>"` : ''
  return `# OpenTofu CLI configuration for Homeport (${serverUrl}).
# Use it with TF_CLI_CONFIG_FILE=<this file>, or copy these blocks into ~/.tofurc.
# It holds an API token: keep it private.${modules}

${hostBlocks({ hostname, serverUrl, token, publicHosts })}${installation}`
}

/** A `host` block per hostname (the registry's own, and `publicHosts` for the air-gapped), each with its `credentials` block when there is a token. */
function hostBlocks({ hostname, serverUrl, token, publicHosts = [] }: TerraformConfigInput): string {
  const base = hcl(serverUrl.replace(/\/+$/, ''))
  const login = `
    "login.v1" = {
      client      = "terraform-cli"
      grant_types = ["authz_code"]
      authz       = "${base}/oauth/authorize"
      token       = "${base}/oauth/token"
      ports       = [10000, 10010]
    }`
  const block = (host: string, prefix: string, withLogin: boolean) => `host "${hcl(host)}" {
  services = {
    "modules.v1" = "${base}${prefix}/modules/"
    "providers.v1" = "${base}${prefix}/providers/"${withLogin ? login : ''}
  }
}
${
  token
    ? `
credentials "${hcl(host)}" {
  token = "${hcl(token)}"
}
`
    : ''
}`
  const air = publicHosts.length
    ? `
# Air-gapped: the public registries' own names point at Homeport too, so an unmodified configuration
# (source = "hashicorp/aws") installs from Homeport's mirror, with upstream's own signatures.
# Remove these blocks (or this file) to reach the public registries directly again.

${publicHosts.map((host) => block(host, PUBLIC_MIRROR_PREFIXES[host] ?? PUBLIC_MIRROR_PREFIXES[TERRAFORM_REGISTRY]!, false)).join('\n')}`
    : ''
  return `${block(hostname, '/api/registry/v1', true)}${air}`
}
