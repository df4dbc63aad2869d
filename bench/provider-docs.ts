import { moduleArchive } from '../tests/helpers/archives.js'
import { makeSigningKey, providerRelease, publishProvider, putFile } from '../tests/helpers/providers.js'
import { launchChromium, signedInPage } from './browser.js'
import { ADMIN_TOKEN, api, median, startHomeport } from './lib.js'

export interface ProviderDocsFigure {
  docs: number
  /** From a click on the provider in its organization's list to the doc's heading and the navigation's first screen shown. */
  pageShownMs: number
  /** … to the whole navigation drawn (its last link). */
  navigationDrawnMs: number
  /** A docs search through the API the GUI's search box calls, and the MCP tool's reader: median and p95 of 50. */
  searchP50Ms: number
  searchP95Ms: number
}

const DOCS = 1500
const SUBCATEGORIES = ['Compute', 'Networking', 'Storage', 'Identity', 'Databases', 'Monitoring', 'Messaging', 'Security', '']

/** A resource page as tfplugindocs writes one, about 3 KB: frontmatter, an example, a schema. */
function resourcePage(index: number): string {
  const name = `resource_${String(index).padStart(4, '0')}`
  const inputs = Array.from({ length: 25 }, (_, input) => `- \`argument_${input}\` (String) What argument ${input} of ${name} sets. Changing it forces a new resource.`)
  return `---\npage_title: "bench_${name} Resource - terraform-provider-bench"\nsubcategory: "${SUBCATEGORIES[index % SUBCATEGORIES.length]}"\ndescription: |-\n  Manages the ${index}th kind of thing.\n---\n\n# bench_${name} (Resource)\n\n## Example Usage\n\n\`\`\`terraform\nresource "bench_${name}" "example" {\n  argument_0 = "value"\n}\n\`\`\`\n\n## Schema\n\n### Optional\n\n${inputs.join('\n')}\n`
}

/**
 * Figure 14: a provider with 1,500 docs (as many as the largest real one, aws, has in all, about
 * 1,000 of them resources and data sources). Its page opened in Chromium, from the
 * organization's provider list, as a user clicks, until the doc and the navigation's first screen show
 * (the rest of the navigation is drawn after, in a transition input interrupts), and until all of it is;
 * and the docs search that the GUI's search box and the MCP tool make, over HTTP.
 */
export async function measureProviderDocs(dataDir: string, rounds = 5): Promise<ProviderDocsFigure> {
  const server = await startHomeport(1, dataDir)
  const target = {
    adminToken: ADMIN_TOKEN,
    fetch,
    // The suite's helpers name paths under /api/v2, or whole ones under /api/ (the GPG keys').
    async api(method: string, path: string, options: { body?: unknown } = {}) {
      const response = await fetch(`${server.url}${/^\/api\//.test(path) ? path : `/api/v2${path}`}`, {
        method,
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/vnd.api+json' },
        body: options.body === undefined ? undefined : JSON.stringify(options.body)
      })
      const text = await response.text()
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
    }
  }
  const browser = await launchChromium()
  try {
    await api(server.url, 'POST', '/organizations', { data: { type: 'organizations', attributes: { name: 'bench', email: 'bench@example.com' } } })
    const key = await makeSigningKey('Bench Docs')
    await publishProvider(target, 'bench', await providerRelease('bench', '1.0.0', ['linux_amd64'], key), key)
    const files: Record<string, string> = { 'docs/index.md': '---\npage_title: "Provider: Bench"\n---\n\n# Bench Provider\n' }
    for (let index = 1; index < DOCS; index++) files[`docs/resources/resource_${String(index).padStart(4, '0')}.md`] = resourcePage(index)
    const version = await api(server.url, 'GET', '/organizations/bench/registry-providers/private/bench/bench/versions/1.0.0')
    const uploaded = await putFile(version.body.data.links['docs-upload'] as string, await moduleArchive(files))
    if (uploaded.status !== 200) throw new Error(`the docs were refused: ${JSON.stringify(uploaded.body)}`)

    const page = await signedInPage(browser, server.url)
    const shown: number[] = []
    const drawn: number[] = []
    for (let round = 0; round < rounds; round++) {
      // A fresh page each round, so nothing is cached in the app: the provider list, then a click on the provider.
      await page.goto(`${server.url}/orgs/bench/providers`)
      await page.getByRole('link', { name: 'bench', exact: true }).waitFor()
      // Clicked and watched from inside the page, at every frame: a role query over a thousand links or more takes longer than what
      // it measures. (A string, not a function: the benchmark runs under tsx, whose helpers do not exist in the page.)
      const [shownMs, drawnMs] = await page.evaluate<[number, number]>(`new Promise((resolve) => {
        const links = () => [...document.querySelectorAll('.docs-nav a')].map((link) => link.textContent)
        const started = performance.now()
        let shown
        document.querySelector('a[href="/orgs/bench/providers/bench"]').click()
        requestAnimationFrame(function check() {
          const now = performance.now()
          if (shown === undefined && document.querySelector('.docs-content h1')?.textContent === 'Bench Provider' && links().includes('bench_resource_0001')) shown = now - started
          if (shown !== undefined && links().includes(${JSON.stringify(`bench_resource_${String(DOCS - 1).padStart(4, '0')}`)})) resolve([shown, now - started])
          else requestAnimationFrame(check)
        })
      })`)
      shown.push(shownMs)
      drawn.push(drawnMs)
    }

    const searches: number[] = []
    for (let index = 0; index < 50; index++) {
      const started = performance.now()
      const found = await api(server.url, 'GET', `/search?q=bench_resource_0${String(100 + index * 17).padStart(3, '0')}`)
      searches.push(performance.now() - started)
      if (!(found.body.data as Array<{ attributes: { kind: string } }>).some((hit) => hit.attributes.kind === 'provider-doc')) throw new Error('the search found no doc')
    }
    const sorted = [...searches].sort((a, b) => a - b)
    return { docs: DOCS, pageShownMs: Math.round(median(shown)), navigationDrawnMs: Math.round(median(drawn)), searchP50Ms: Math.round(median(searches) * 10) / 10, searchP95Ms: Math.round(sorted[Math.floor(sorted.length * 0.95)]! * 10) / 10 }
  } finally {
    await browser.close()
    await server.stop()
  }
}
