import { expect, type APIRequestContext } from '@playwright/test'
import { moduleArchive } from '../../tests/helpers/archives'
import { ADMIN_HEADERS as headers } from './admin-api'

/** Publishes a version through the API, as a pipeline does (from `commit`, when given), and waits until it is published. */
export async function publish(request: APIRequestContext, org: string, name: string, provider: string, version: string, files: Record<string, string>, commit?: string) {
  const module = `/api/v2/organizations/${org}/registry-modules/private/${org}/${name}/${provider}`
  const created = await request.post(`${module}/versions`, { headers, data: { data: { type: 'registry-module-versions', attributes: { version, ...(commit ? { 'commit-sha': commit } : {}) } } } })
  expect(created.status()).toBe(201)
  const link = ((await created.json()) as { data: { links: { upload: string } } }).data.links.upload
  expect((await request.put(link, { data: await moduleArchive(files) })).status()).toBe(200)
  await expect
    .poll(async () => ((await (await request.get(module, { headers })).json()) as { data: { attributes: { 'version-statuses': Array<{ version: string; status: string }> } } }).data.attributes['version-statuses'].find((entry) => entry.version === version)?.status, { timeout: 30_000 })
    .toBe('ok')
}

