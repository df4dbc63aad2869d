import type Router from '@koa/router'
import type { Services } from '../../domain/services.js'
import { queryWords } from '../../domain/search/module-search.js'
import { callerOf } from '../../http/auth.js'
import { sendDocument } from '../../http/jsonapi.js'
import { queryString } from '../../http/query.js'
import { subjectOf } from '../../domain/provider-docs/provider-docs.js'
import { PUBLIC_REGISTRY_HOSTS } from '../../../shared/terraform-config.js'
import type { Resource } from '../../../shared/wire/jsonapi.js'
import type { SearchHitAttributes } from '../../../shared/wire/search.js'

/** The most hits of each kind one search answers with: a search is refined, not paged. */
const MOST = { organization: 10, module: 25, provider: 10, 'provider-doc': 15 }

/**
 * Homeport's own `GET /api/v2/search?q=`: the organizations, modules, providers and provider docs the caller may read
 * that hold every word of `q`, each kind best first (modules ranked as the assistant's search_modules
 * ranks them: names, descriptions, inputs, outputs, resources, READMEs), for the GUI's search.
 */
export function searchRoutes(router: Router, services: Services): void {
  router.get('/search', async (ctx) => {
    const caller = callerOf(ctx)
    const query = queryString(ctx, 'q') ?? ''
    const words = queryWords(query)
    const holdsEvery = (text: string) => words.every((word) => text.toLowerCase().includes(word))
    const hits: Array<Resource<SearchHitAttributes, 'search-hits'>> = []
    const hit = (id: string, attributes: SearchHitAttributes) => hits.push({ type: 'search-hits', id, attributes })
    if (words.length > 0) {
      const organizations = (await services.organizations.list(caller)).filter((org) => holdsEvery(org.name))
      for (const org of organizations.slice(0, MOST.organization)) {
        hit(`organization:${org.name}`, { kind: 'organization', organization: org.name, address: org.name, registry: null, module: null, doc: null, description: org.email, matched: ['name'] })
      }
      const modules = await services.moduleCatalog.searchWithCurated(caller, query, MOST.module)
      for (const { item, matched } of modules.ranked.slice(0, MOST.module)) {
        const { entry, description } = item
        const [namespace = '', name = '', provider = ''] = entry.address.split('/')
        hit(`module:${entry.view.module.id}`, {
          kind: 'module',
          organization: entry.view.org.name,
          address: `${entry.hostname}/${entry.address}`,
          registry: entry.view.module.registryName,
          module: { namespace, name, provider },
          doc: null,
          description,
          matched
        })
      }
      // A curated public module with no version here yet is found by its address (it has no documentation), after those ranked.
      for (const { org, module } of modules.unversioned.slice(0, Math.max(0, MOST.module - modules.ranked.length))) {
        const address = `${module.namespace ?? ''}/${module.name}/${module.provider}`
        hit(`module:${module.id}`, {
          kind: 'module',
          organization: org.name,
          address: `${PUBLIC_REGISTRY_HOSTS[0]!}/${address}`,
          registry: 'public',
          module: { namespace: module.namespace ?? '', name: module.name, provider: module.provider },
          doc: null,
          description: 'A public module curated here: no version mirrored yet.',
          matched: ['name']
        })
      }
      const providers = (await services.providerCatalog.entries(caller)).filter((entry) => holdsEvery(`${entry.hostname}/${entry.address}`))
      for (const entry of providers.slice(0, MOST.provider)) {
        hit(`provider:${entry.hostname}/${entry.address}`, {
          kind: 'provider',
          organization: entry.organization ?? '',
          address: `${entry.hostname}/${entry.address}`,
          registry: entry.registry,
          module: null,
          doc: null,
          description: `latest ${entry.latest.version}`,
          matched: ['name']
        })
      }
      // Resources and data sources by the names configurations give them (`aws_s3_bucket`), in the docs kept here.
      for (const { shelf, docs, doc } of await services.providerDocs.searchEverywhere(caller, query, MOST['provider-doc'])) {
        const [hostname = ''] = shelf.address.split('/')
        const subject = subjectOf(shelf.name, doc)
        hit(`provider-doc:${doc.id}`, {
          kind: 'provider-doc',
          organization: shelf.key.startsWith('private:') ? shelf.namespace : '',
          address: shelf.address,
          registry: shelf.key.startsWith('private:') ? 'private' : 'mirror',
          module: null,
          doc: { name: subject, category: doc.category, slug: doc.slug, version: docs.version, hostname, namespace: shelf.namespace, type: shelf.name },
          description: doc.description,
          matched: ['docs']
        })
      }
    }
    sendDocument(ctx, 200, { data: hits })
  })
}
