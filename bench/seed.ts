import { moduleArchive } from '../tests/helpers/archives.js'
import { api, pool } from './lib.js'

export const SEED_MODULE = {
  'README.md': '# Seeded module\n\nA module the benchmark publishes many times.\n',
  'variables.tf': 'variable "name" {\n  type        = string\n  description = "A name"\n}\n\nvariable "size" {\n  type    = number\n  default = 3\n}\n',
  'main.tf': 'resource "null_resource" "this" {\n  triggers = { name = var.name }\n}\n',
  'outputs.tf': 'output "id" {\n  value = null_resource.this.id\n}\n'
}

/**
 * Seeds through the real API: `modules` modules of `versions` versions each in organization
 * `org`, every version created and uploaded as a client would, then waited for until `ok`.
 */
export async function seedThroughApi(url: string, org: string, modules: number, versions: number, onProgress: (done: number) => void): Promise<void> {
  await api(url, 'POST', '/organizations', { data: { type: 'organizations', attributes: { name: org, email: `${org}@example.com` } } })
  const archive = new Uint8Array(await moduleArchive(SEED_MODULE))
  let done = 0
  await pool(
    Array.from({ length: modules }, (_, i) => `module-${String(i).padStart(5, '0')}`),
    8,
    async (name) => {
      await api(url, 'POST', `/organizations/${org}/registry-modules`, { data: { type: 'registry-modules', attributes: { name, provider: 'aws' } } })
      for (let v = 0; v < versions; v++) {
        const created = await api(url, 'POST', `/organizations/${org}/registry-modules/private/${org}/${name}/aws/versions`, {
          data: { type: 'registry-module-versions', attributes: { version: `1.${v}.0` } }
        })
        const uploaded = await fetch(created.body.data.links.upload, { method: 'PUT', body: archive })
        if (uploaded.status !== 200) throw new Error(`upload failed: ${uploaded.status}`)
      }
      onProgress(++done)
    }
  )
  // Wait until every version is published.
  for (;;) {
    const page = await api(url, 'GET', `/organizations/${org}/registry-modules?page[size]=100&page[number]=${Math.ceil(modules / 100)}`)
    const pending = (page.body.data as Array<{ attributes: { 'version-statuses': Array<{ status: string }> } }>).some((module) =>
      module.attributes['version-statuses'].some((entry) => entry.status !== 'ok')
    )
    if (!pending) return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
