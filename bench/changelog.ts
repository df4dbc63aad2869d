import { vpcModule } from '../e2e/support/vpc-module.js'
import { moduleArchive } from '../tests/helpers/archives.js'
import { launchChromium, signedInPage } from './browser.js'
import { api, median, startHomeport } from './lib.js'

export interface ChangelogFigure {
  /** The changelog's size, and how many releases it holds. */
  kilobytes: number
  releases: number
  /** From a click on the Changelog tab to the frame after the one that first holds its newest release: the median of the rounds. */
  shownMs: number
  /** … to the frame after the one that holds all of it. */
  drawnMs: number
  /** How tall the changelog is, in CSS pixels, at 1280 px wide. */
  heightPx: number
}

/**
 * Figure 16: the vpc module the GUI specs publish (e2e/support/vpc-module.ts: terraform-aws-vpc's shape,
 * its CHANGELOG.md years of releases long), its Changelog tab opened in Chromium from the module's page,
 * as a user clicks: until the frame after the one that first holds the newest release (that frame's
 * layout and paint are part of the cost), and until the frame after the one that holds all of it. The
 * medians of `rounds`.
 */
export async function measureChangelog(dataDir: string, rounds = 5): Promise<ChangelogFigure> {
  const server = await startHomeport(1, dataDir)
  const browser = await launchChromium()
  try {
    const files = vpcModule('5.8.1')
    const changelog = files['CHANGELOG.md']!
    const versions = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((match) => match[1]!)
    await api(server.url, 'POST', '/organizations', { data: { type: 'organizations', attributes: { name: 'bench', email: 'bench@example.com' } } })
    await api(server.url, 'POST', '/organizations/bench/registry-modules', { data: { type: 'registry-modules', attributes: { name: 'vpc', provider: 'aws' } } })
    const created = await api(server.url, 'POST', '/organizations/bench/registry-modules/private/bench/vpc/aws/versions', { data: { type: 'registry-module-versions', attributes: { version: '5.8.1' } } })
    const archive = await moduleArchive(files)
    const uploaded = await fetch(created.body.data.links.upload as string, { method: 'PUT', body: new Uint8Array(archive) })
    if (uploaded.status !== 200) throw new Error(`the module was refused: ${uploaded.status}`)
    for (let tries = 0; ; tries++) {
      const module = await api(server.url, 'GET', '/organizations/bench/registry-modules/private/bench/vpc/aws')
      const statuses = module.body.data.attributes['version-statuses'] as Array<{ status: string }>
      if (statuses.every((entry) => entry.status === 'ok')) break
      if (tries > 600) throw new Error(`the module's version was not published: ${JSON.stringify(statuses)}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const page = await signedInPage(browser, server.url)
    const shown: number[] = []
    const drawn: number[] = []
    let heightPx = 0
    for (let round = 0; round < rounds; round++) {
      await page.goto(`${server.url}/orgs/bench/modules/private/bench/vpc/aws/5.8.1`)
      await page.getByRole('tab', { name: /^Changelog/ }).waitFor({ timeout: 60_000 })
      // Clicked and watched from inside the page, at every frame. (A string, not a function: the benchmark runs under tsx, whose helpers do not exist in the page.)
      const [ms, allMs, height] = await page.evaluate<[number, number, number]>(`new Promise((resolve) => {
        const started = performance.now()
        const newest = ${JSON.stringify(versions[0])}
        const oldest = ${JSON.stringify(versions[versions.length - 1])}
        const release = (version) => [...document.querySelectorAll('.markdown h2')].find((h2) => h2.textContent.startsWith(version + ' '))
        let shown
        ;[...document.querySelectorAll('[role=tab]')].find((tab) => tab.textContent.startsWith('Changelog')).click()
        requestAnimationFrame(function check() {
          const now = performance.now()
          if (shown === undefined && release(newest)) shown = now - started
          if (shown !== undefined && release(oldest) && document.querySelector('.markdown[aria-busy=true]') === null) {
            requestAnimationFrame(() => {
              const drawn = performance.now() - started
              // Its height as drawn whole: pieces off screen hold an estimate of theirs until laid out.
              for (const piece of document.querySelectorAll('.markdown-piece')) piece.style.contentVisibility = 'visible'
              resolve([shown, drawn, document.querySelector('.markdown').getBoundingClientRect().height])
            })
          } else requestAnimationFrame(check)
        })
      })`)
      shown.push(ms)
      drawn.push(allMs)
      heightPx = Math.round(height)
    }
    return { releases: versions.length, kilobytes: Math.round(changelog.length / 1024), shownMs: Math.round(median(shown)), drawnMs: Math.round(median(drawn)), heightPx }
  } finally {
    await browser.close()
    await server.stop()
  }
}
