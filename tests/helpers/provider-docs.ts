/**
 * Provider docs as real providers ship them, written for the tests (shared/research/provider-docs.md
 * §1): tfplugindocs' `docs/` tree with every category, subcategories, the generator's comment inside
 * the frontmatter, `description: |-` blocks, CDKTF pages with an HTML comment inside the frontmatter,
 * `terraform` code fences, Schema sections with nested blocks, callouts (`->`, `~>`, `!>`); the legacy
 * `website/docs/` tree with `r/`, `d/`, `.html.md` and a flat page classified by `sidebar_current`;
 * and one hostile page (a script, a `javascript:` link, a remote image) that must be neutralized.
 */

interface ResourceSpec {
  name: string
  subcategory: string
  summary: string
}

const RESOURCES: ResourceSpec[] = [
  { name: 'server', subcategory: 'Compute', summary: 'Manages a virtual server: its size, image, network interfaces and the disks attached to it.' },
  { name: 'server_group', subcategory: 'Compute', summary: 'Places servers apart (anti-affinity) or together (affinity) across hosts.' },
  { name: 'image', subcategory: 'Compute', summary: 'A machine image built from a snapshot or imported from object storage.' },
  { name: 'autoscaling_group', subcategory: 'Compute', summary: 'Keeps a number of servers running from a launch template, scaling on load.' },
  { name: 'network', subcategory: 'Networking', summary: 'A private network with its address space and DNS settings.' },
  { name: 'subnet', subcategory: 'Networking', summary: 'A range of a network’s addresses in one zone.' },
  { name: 'route_table', subcategory: 'Networking', summary: 'Routes of a network, associated with its subnets.' },
  { name: 'firewall_rule', subcategory: 'Networking', summary: 'Allows or denies traffic to servers by port, protocol and source range.' },
  { name: 'load_balancer', subcategory: 'Networking', summary: 'Spreads traffic over servers, with listeners, health checks and TLS certificates.' },
  { name: 'dns_record', subcategory: 'Networking', summary: 'A record of a managed DNS zone: A, AAAA, CNAME, MX, TXT or SRV.' },
  { name: 'bucket', subcategory: 'Storage', summary: 'An object storage bucket with versioning, lifecycle rules and encryption.' },
  { name: 'bucket_policy', subcategory: 'Storage', summary: 'The access policy document of a bucket.' },
  { name: 'volume', subcategory: 'Storage', summary: 'A block storage volume that servers attach.' },
  { name: 'snapshot', subcategory: 'Storage', summary: 'A point-in-time copy of a volume.' },
  { name: 'database_instance', subcategory: 'Databases', summary: 'A managed PostgreSQL or MySQL instance with backups and maintenance windows.' },
  { name: 'database_user', subcategory: 'Databases', summary: 'A user of a managed database instance.' },
  { name: 'iam_role', subcategory: 'Identity', summary: 'A role that servers and people assume, with its trust policy.' },
  { name: 'iam_policy', subcategory: 'Identity', summary: 'A managed policy document attached to roles.' },
  { name: 'project', subcategory: '', summary: 'A project groups resources, billing and access.' },
  { name: 'legacy_queue', subcategory: 'Deprecated', summary: 'A message queue of the first generation. Use widget_queue instead.' }
]

const DATA_SOURCES: ResourceSpec[] = [
  { name: 'server', subcategory: 'Compute', summary: 'Reads a server by id or name.' },
  { name: 'image', subcategory: 'Compute', summary: 'Finds the newest image matching filters.' },
  { name: 'network', subcategory: 'Networking', summary: 'Reads a network by name.' },
  { name: 'subnets', subcategory: 'Networking', summary: 'Lists the subnets of a network.' },
  { name: 'bucket', subcategory: 'Storage', summary: 'Reads a bucket’s settings.' },
  { name: 'zones', subcategory: '', summary: 'The zones of the region the provider is configured for.' },
  { name: 'iam_policy_document', subcategory: 'Identity', summary: 'Builds a policy document as JSON from HCL blocks.' },
  { name: 'caller_identity', subcategory: '', summary: 'The account and user the provider runs as.' }
]

function schema(name: string): string {
  const inputs = [
    '- `name` (String) The name, unique in its project. Changing it forces a new resource.',
    '- `project` (String) The project it belongs to. See [widget_project](../resources/project.md).'
  ]
  const optional = [
    '- `description` (String) A description shown in the console. Defaults to `""`.',
    '- `labels` (Map of String) Labels to attach, as `key = "value"` pairs. See the [labels guide](https://docs.widget.example/concepts/labels-and-tags-and-everything-you-may-want-to-know-about-them).',
    `- \`timeouts\` (Block, Optional) (see [below for nested schema](#nestedblock--timeouts))`,
    `- \`network_interface\` (Block List, Max: 8) Network interfaces of the ${name}. (see [below for nested schema](#nestedblock--network_interface))`
  ]
  return [
    '## Schema',
    '',
    '### Required',
    '',
    ...inputs,
    '',
    '### Optional',
    '',
    ...optional,
    '',
    '### Read-Only',
    '',
    '- `id` (String) The identifier, `projects/{project}/{name}`.',
    '- `created_at` (String) When it was created, RFC 3339.',
    '',
    '<a id="nestedblock--timeouts"></a>',
    '### Nested Schema for `timeouts`',
    '',
    'Optional:',
    '',
    '- `create` (String) Defaults to `"10m"`.',
    '- `delete` (String) Defaults to `"20m"`.',
    '',
    '<a id="nestedblock--network_interface"></a>',
    '### Nested Schema for `network_interface`',
    '',
    'Required:',
    '',
    '- `subnet_id` (String) The subnet it sits in.',
    '',
    'Optional:',
    '',
    '- `security_groups` (Set of String) Up to five security groups.'
  ].join('\n')
}

function resourcePage(provider: string, kind: 'Resource' | 'Data Source' | 'Ephemeral Resource', spec: ResourceSpec): string {
  const full = `${provider}_${spec.name}`
  const block = kind === 'Resource' ? 'resource' : kind === 'Data Source' ? 'data' : 'ephemeral'
  return `---
# generated by https://github.com/hashicorp/terraform-plugin-docs
page_title: "${full} ${kind} - terraform-provider-${provider}"
subcategory: "${spec.subcategory}"
description: |-
  ${spec.summary}
  Read the provider's guides for the concepts behind it.
---

# ${full} (${kind})

${spec.summary}

-> **Note:** ${full} is eventually consistent: a read right after a change may return the old state.

## Example Usage

\`\`\`terraform
${block} "${full}" "example" {
  name    = "example-${spec.name.replace(/_/g, '-')}"
  project = "acme-production"

  labels = {
    team        = "platform"
    cost_center = "1234"
  }
}
\`\`\`

${schema(spec.name)}
${kind === 'Resource' ? `\n## Import\n\nImport is supported using the following syntax:\n\n\`\`\`shell\nterraform import ${full}.example projects/acme-production/example\n\`\`\`\n` : ''}`
}

/**
 * A tfplugindocs `docs/` tree of provider `provider`: 45 files in every category (with subcategories,
 * a deprecated one, CDKTF pages with the frontmatter quirk, and the hostile page), by path.
 */
export function providerDocsTree(provider = 'widget'): Record<string, string> {
  const files: Record<string, string> = {}
  files['docs/index.md'] = `---
page_title: "Provider: Widget"
description: |-
  The Widget provider manages Widget Cloud: servers, networks, storage and identity.
---

# Widget Provider

The Widget provider manages [Widget Cloud](https://widget.example) resources. Configure it with a project and a region.

~> **Warning:** Hard-coded credentials are not recommended. Use the \`WIDGET_TOKEN\` environment variable.

## Example Usage

\`\`\`terraform
provider "${provider}" {
  project = "acme-production"
  region  = "eu-west-1"
}
\`\`\`

## Schema

### Optional

- \`project\` (String) The default project.
- \`region\` (String) The default region.
- \`token\` (String, Sensitive) An API token; \`WIDGET_TOKEN\` when not set.
`
  files['docs/guides/getting-started.md'] = `---
page_title: "Getting started with the Widget provider"
description: |-
  Your first server, network and bucket.
---

# Getting started

Create a project, then a [network](../resources/network.md) and a [server](../resources/server.md).
`
  files['docs/guides/version-4-upgrade.md'] = `---
page_title: "Upgrading to version 4 of the Widget provider"
subcategory: "Upgrade Guides"
description: |-
  What changed in 4.0 and how to move.
---

# Upgrading to version 4

!> **Warning:** Version 4 removes \`${provider}_legacy_queue\`. Move to \`${provider}_queue\` first.

| Resource | Change |
|---|---|
| \`${provider}_server\` | \`size\` renamed \`machine_type\` |
| \`${provider}_bucket\` | \`acl\` removed |
`
  files['docs/guides/hostile.md'] = `---
page_title: "A page that tries too much"
description: A guide with a script, a javascript: link and a remote image, all of which must be neutralized.
---

# A page that tries too much

<script>window.__docsPwned = true</script>

[Click me](javascript:window.__docsPwned=true) and ![tracker](https://tracker.example/pixel.png)

<img src="https://tracker.example/pixel2.png" onerror="window.__docsPwned = true">

<iframe src="https://evil.example"></iframe>

Safe text stays.
`
  for (const spec of RESOURCES) files[`docs/resources/${spec.name}.md`] = resourcePage(provider, 'Resource', spec)
  for (const spec of DATA_SOURCES) files[`docs/data-sources/${spec.name}.md`] = resourcePage(provider, 'Data Source', spec)
  files['docs/ephemeral-resources/token.md'] = resourcePage(provider, 'Ephemeral Resource', { name: 'token', subcategory: 'Identity', summary: 'A short-lived API token that is never stored in state.' })
  files['docs/ephemeral-resources/password.md'] = resourcePage(provider, 'Ephemeral Resource', { name: 'password', subcategory: '', summary: 'A random password that is never stored in state.' })
  for (const fn of ['parse_arn', 'cidr_contains', 'duration_parse']) {
    files[`docs/functions/${fn}.md`] = `---
page_title: "${fn} function - terraform-provider-${provider}"
subcategory: ""
description: |-
  ${fn.replace(/_/g, ' ')} for configurations.
---

# function: ${fn}

## Example Usage

\`\`\`terraform
output "example" {
  value = provider::${provider}::${fn}("example")
}
\`\`\`

## Signature

\`\`\`text
${fn}(input string) object
\`\`\`
`
  }
  files['docs/actions/restart_server.md'] = `---
page_title: "${provider}_restart_server Action - terraform-provider-${provider}"
subcategory: "Compute"
description: |-
  Restarts a server.
---

# ${provider}_restart_server (Action)

Restarts a server in place.
`
  files['docs/list-resources/server.md'] = `---
page_title: "${provider}_server List Resource - terraform-provider-${provider}"
subcategory: "Compute"
description: |-
  Lists servers for import.
---

# ${provider}_server (List Resource)
`
  files['docs/cdktf/python/resources/server.md'] = `---
<!-- Please do not edit this file, it is generated. -->
# generated by https://github.com/hashicorp/terraform-plugin-docs
page_title: "${provider}_server Resource - terraform-provider-${provider}"
subcategory: "Compute"
description: |-
  Manages a virtual server.
---

# ${provider}_server (Resource)

\`\`\`python
from cdktf import TerraformStack
\`\`\`
`
  files['docs/images/diagram.svg'] = '<svg xmlns="http://www.w3.org/2000/svg"></svg>'
  return files
}

/** The legacy `website/docs/` tree, as random and null had it before tfplugindocs (v3.0.0). */
export function legacyDocsTree(provider = 'widget'): Record<string, string> {
  return {
    'website/docs/index.html.markdown': `---\nlayout: "${provider}"\npage_title: "Provider: Widget"\nsidebar_current: "docs-${provider}-index"\ndescription: |-\n  The Widget provider.\n---\n\n# Widget Provider\n`,
    'website/docs/r/server.html.md': `---\nlayout: "${provider}"\npage_title: "Widget: ${provider}_server"\nsidebar_current: "docs-${provider}-resource-server"\ndescription: |-\n  Manages a server.\n---\n\n# ${provider}\\_server\n\nManages a server.\n`,
    'website/docs/d/image.html.markdown': `---\nlayout: "${provider}"\npage_title: "Widget: ${provider}_image"\nsidebar_current: "docs-${provider}-datasource-image"\ndescription: |-\n  Finds an image.\n---\n\n# ${provider}\\_image\n`,
    'website/docs/data_source.html.markdown': `---\nlayout: "${provider}"\npage_title: "Widget: ${provider}_data_source"\nsidebar_current: "docs-${provider}-data-source"\ndescription: |-\n  A data source.\n---\n\n# ${provider}\\_data\\_source\n`,
    'website/docs/resource.html.markdown': `---\nlayout: "${provider}"\npage_title: "Widget: ${provider}_resource"\nsidebar_current: "docs-${provider}-resource"\ndescription: |-\n  A resource.\n---\n\n# ${provider}\\_resource\n`,
    'website/widget.erb': '<% wrap_layout :inner do %><% end %>'
  }
}

/** How many docs providerDocsTree's `docs/` holds in each category (HCL only), for the tests' counts. */
export const DOCS_TREE_COUNTS = { overview: 1, guides: 3, resources: RESOURCES.length, 'data-sources': DATA_SOURCES.length, 'ephemeral-resources': 2, functions: 3, actions: 1, 'list-resources': 1 }

/** A doc as the stand-in upstream serves it: its number, its v2 attributes and its markdown. */
interface ServedDoc {
  id: string
  attributes: { category: string; language: string; path: string; slug: string; subcategory: string | null; title: string; truncated: boolean }
  content: string
}

/** The registry's category of a `docs/` path, and its language (a CDKTF page's), written here independently of Homeport's reader. */
function servedDoc(id: number, path: string, content: string): ServedDoc | undefined {
  const match = /^docs\/(?:cdktf\/([a-z]+)\/)?(?:(index)\.md|([a-z-]+)\/([^/]+)\.md)$/.exec(path)
  if (!match) return undefined
  const [, language = 'hcl', index, folder, name] = match
  const title = /page_title: "([^"]*)"/.exec(content)?.[1]
  const subcategory = /subcategory: "([^"]*)"/.exec(content)?.[1] || null
  const category = index ? 'overview' : folder!
  const slug = index ? 'index' : name!
  return { id: String(id), attributes: { category, language, path, slug, subcategory, title: category === 'guides' || index ? (title ?? slug) : slug, truncated: false }, content }
}

export interface DocsUpstream {
  url: string
  /** The paths and queries asked of its v2 API, in order. */
  asked: string[]
  close(): Promise<void>
}

/**
 * A stand-in for registry.terraform.io's docs: its v2 API (`/v2/providers/{ns}/{type}?include=provider-versions`,
 * `/v2/provider-docs` paged at `pageSize` with a page past the end answering `data: []`, `/v2/provider-docs/{id}`)
 * over the trees given per `namespace/type` and version, in front of `behind` (a Homeport standing in
 * for the registry's protocols), to which it passes every other request. With `openTofu`, OpenTofu's
 * docs API instead (api.opentofu.org's static files: `/registry/docs/providers/{ns}/{type}/v{version}/index.json`,
 * `index.md`, `{kind}s/{name}.md`, with `datasources` for data sources and no newer kinds).
 */
export async function startDocsUpstream(behind: string, trees: Record<string, Record<string, Record<string, string>>>, pageSize = 10, { openTofu = false } = {}): Promise<DocsUpstream> {
  const { createServer } = await import('node:http')
  let next = 7_000_000
  const versions = new Map<string, { id: string; version: string; docs: ServedDoc[] }[]>()
  const byId = new Map<string, ServedDoc>()
  const byVersionId = new Map<string, ServedDoc[]>()
  for (const [provider, perVersion] of Object.entries(trees)) {
    versions.set(
      provider,
      Object.entries(perVersion).map(([version, files]) => {
        const docs = Object.entries(files).flatMap(([path, content]) => servedDoc(next++, path, content) ?? [])
        for (const doc of docs) byId.set(doc.id, doc)
        const entry = { id: String(next++), version, docs }
        byVersionId.set(entry.id, docs)
        return entry
      })
    )
  }
  const asked: string[] = []
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://upstream')
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/vnd.api+json' })
      response.end(JSON.stringify(body))
    }
    if (url.pathname.startsWith('/v2/') || url.pathname.startsWith('/registry/docs/')) asked.push(`${url.pathname}${url.search}`)
    const tofu = openTofu ? /^\/registry\/docs\/providers\/([^/]+)\/([^/]+)\/v([^/]+)\/(.+)$/.exec(url.pathname) : null
    if (tofu) {
      const [, namespace, type, version, file] = tofu as unknown as [string, string, string, string, string]
      const docs = versions.get(`${namespace}/${type}`)?.find((entry) => entry.version === version)?.docs.filter((doc) => doc.attributes.language === 'hcl')
      if (!docs) return json(404, { errors: ['Not Found'] })
      const kinds: Record<string, string> = { resources: 'resources', 'data-sources': 'datasources', functions: 'functions', guides: 'guides' }
      const item = (doc: ServedDoc) => ({ name: doc.attributes.slug, title: doc.attributes.title, subcategory: doc.attributes.subcategory ?? '', description: /description: \|-\n {2}(.*)/.exec(doc.content)?.[1] ?? '', edit_link: '' })
      if (file === 'index.json') {
        const index = docs.find((doc) => doc.attributes.category === 'overview')
        return json(200, {
          id: `v${version}`,
          published: '2026-05-13T10:00:00Z',
          docs: { ...(index ? { index: item(index) } : {}), ...Object.fromEntries(Object.entries(kinds).map(([category, kind]) => [kind, docs.filter((doc) => doc.attributes.category === category).map(item)])) }
        })
      }
      const doc = file === 'index.md' ? docs.find((candidate) => candidate.attributes.category === 'overview') : docs.find((candidate) => `${kinds[candidate.attributes.category]}/${candidate.attributes.slug}.md` === file)
      if (!doc) return json(404, { errors: ['Not Found'] })
      response.writeHead(200, { 'content-type': 'text/markdown' })
      return response.end(doc.content)
    }
    const provider = /^\/v2\/providers\/([^/]+)\/([^/]+)$/.exec(url.pathname)
    if (provider) {
      const listed = versions.get(`${provider[1]}/${provider[2]}`)
      if (!listed) return json(404, { errors: ['Not Found'] })
      return json(200, {
        data: { type: 'providers', id: '1', attributes: { namespace: provider[1], name: provider[2], 'full-name': `${provider[1]}/${provider[2]}` } },
        included: listed.map((entry) => ({ type: 'provider-versions', id: entry.id, attributes: { version: entry.version, 'published-at': '2026-05-13T10:00:00Z', tag: `v${entry.version}` } }))
      })
    }
    if (url.pathname === '/v2/provider-docs') {
      const docs = (byVersionId.get(url.searchParams.get('filter[provider-version]') ?? '') ?? []).filter(
        (doc) => doc.attributes.category === url.searchParams.get('filter[category]') && doc.attributes.language === (url.searchParams.get('filter[language]') ?? 'hcl')
      )
      const page = Number(url.searchParams.get('page[number]') ?? '1')
      return json(200, { data: docs.slice((page - 1) * pageSize, page * pageSize).map((doc) => ({ type: 'provider-docs', id: doc.id, attributes: doc.attributes, links: { self: `/v2/provider-docs/${doc.id}` } })) })
    }
    const one = /^\/v2\/provider-docs\/(\d+)$/.exec(url.pathname)
    if (one) {
      const doc = byId.get(one[1]!)
      return doc ? json(200, { data: { type: 'provider-docs', id: doc.id, attributes: { ...doc.attributes, content: doc.content } } }) : json(404, { errors: ['Not Found'] })
    }
    void fetch(`${behind}${url.pathname}${url.search}`, { headers: { authorization: request.headers.authorization ?? '', accept: request.headers.accept ?? '*/*' }, redirect: 'manual' }).then(
      async (answer) => {
        const headers: Record<string, string> = {}
        answer.headers.forEach((value, name) => {
          if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name)) headers[name] = value
        })
        response.writeHead(answer.status, headers)
        response.end(Buffer.from(await answer.arrayBuffer()))
      },
      () => json(502, { errors: ['the registry behind is gone'] })
    )
  })
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    close: () => new Promise<void>((closed) => server.close(() => closed()))
  }
}

/**
 * Publishes `widget` 1.0.0 in `org` with providerDocsTree's docs uploaded, and answers its v1
 * provider-version record (the docs' outline), for a test that carries it somewhere and compares.
 */
export async function publishProviderWithDocs(test: import('./server.js').TestServer, org: string): Promise<{ docs: Array<{ id: string; path: string }> } & Record<string, unknown>> {
  const { makeSigningKey, providerRelease, publishProvider, putFile } = await import('./providers.js')
  const { moduleArchive } = await import('./archives.js')
  const key = await makeSigningKey('Docs Carrier')
  await publishProvider(test, org, await providerRelease('widget', '1.0.0', ['linux_amd64'], key), key)
  const version = await test.api('GET', `/organizations/${org}/registry-providers/private/${org}/widget/versions/1.0.0`)
  const uploaded = await putFile(version.body.data.links['docs-upload'] as string, await moduleArchive(providerDocsTree()), test.fetch)
  if (uploaded.status !== 200) throw new Error(`docs: ${uploaded.status} ${JSON.stringify(uploaded.body)}`)
  return (await test.api('GET', `/api/registry/v1/providers/${org}/widget/1.0.0`)).body
}
