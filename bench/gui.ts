import { launchChromium, signedInPage } from './browser.js'
import { median, startHomeport, type Started } from './lib.js'
import { generatedName, generateRegistry } from './store.js'

export interface GuiFigure {
  modules: number
  listShownMs: number
  scrollFrameP95Ms: number
  scrollFrameMaxMs: number
}

/**
 * Figure 6: the module list with 10,000 modules in Chromium: the time from opening it (a click on the organization) to
 * the list showing (first rows and the count), and the frame times while it scrolls (and loads
 * further pages) for two seconds.
 */
export async function measureGui(dataDir: string, rounds = 3): Promise<GuiFigure> {
  await generateRegistry(dataDir, 10_000, 1)
  const server = await startHomeport(1, dataDir)
  try {
    return await measureModuleList(server, 10_000, rounds)
  } finally {
    await server.stop()
  }
}

/** Figure 6's measure of organization `bench`'s module list of `modules` modules, on a running Homeport (figure 15 too). */
export async function measureModuleList(server: Started, modules: number, rounds = 3): Promise<GuiFigure> {
  const browser = await launchChromium()
  try {
    const page = await signedInPage(browser, server.url)
    const shown: number[] = []
    const nav = page.getByRole('navigation', { name: 'Homeport' })
    for (let round = 0; round < rounds; round++) {
      // From the organizations, into bench's module list, as a user clicks (the router's own navigation, no reload).
      await nav.getByRole('link', { name: 'Connect Terraform' }).click()
      await page.getByRole('heading', { name: 'Connect Terraform' }).waitFor()
      await nav.getByRole('link', { name: 'Organizations' }).click()
      const card = page.getByRole('list', { name: 'Organizations' }).getByRole('heading', { name: 'bench', exact: true })
      await card.waitFor()
      const started = performance.now()
      await card.click()
      await page.getByText(`${modules.toLocaleString('en')} modules`).waitFor()
      await page.getByRole('listitem').filter({ hasText: generatedName(1) }).waitFor()
      shown.push(performance.now() - started)
    }
    // A string, not a function: the benchmark runs under tsx, whose helpers do not exist in the page.
    const frames = await page.evaluate<number[]>(`new Promise((resolve) => {
      const list = document.querySelector('.virtual-list')
      const deltas = []
      let last = performance.now()
      const end = last + 2000
      requestAnimationFrame(function step(now) {
        deltas.push(now - last)
        last = now
        list.scrollTop += 400
        if (now < end) requestAnimationFrame(step)
        else resolve(deltas.slice(1))
      })
    })`)
    const sorted = [...frames].sort((a, b) => a - b)
    return {
      modules,
      listShownMs: Math.round(median(shown)),
      scrollFrameP95Ms: Math.round(sorted[Math.floor(sorted.length * 0.95)]! * 10) / 10,
      scrollFrameMaxMs: Math.round(sorted.at(-1)! * 10) / 10
    }
  } finally {
    await browser.close()
  }
}

/**
 * Figure 15's module page: from a click on `module` in organization `bench`'s module list to its page
 * showing its readme tab and its versions list (the newest, and "Show all"); then from that click to
 * every one of its `versions` versions listed. The medians of `rounds`.
 */
export async function measureModulePage(server: Started, module: string, versions: number, rounds = 3): Promise<{ shownMs: number; allShownMs: number }> {
  const browser = await launchChromium()
  try {
    const page = await signedInPage(browser, server.url)
    const shown: number[] = []
    const allShown: number[] = []
    for (let round = 0; round < rounds; round++) {
      await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Organizations' }).click()
      await page.getByRole('list', { name: 'Organizations' }).getByRole('heading', { name: 'bench', exact: true }).click()
      const link = page.getByRole('listitem').filter({ hasText: module }).getByRole('link').first()
      await link.waitFor()
      const started = performance.now()
      await link.click()
      await page.getByRole('tab', { name: /^Readme/ }).waitFor()
      const showAll = page.getByRole('button', { name: `Show all ${versions} versions` })
      await showAll.waitFor()
      shown.push(performance.now() - started)
      const asked = performance.now()
      await showAll.click()
      await page.getByRole('list', { name: 'Versions' }).getByRole('listitem').nth(versions - 1).waitFor()
      allShown.push(performance.now() - asked)
    }
    return { shownMs: Math.round(median(shown)), allShownMs: Math.round(median(allShown)) }
  } finally {
    await browser.close()
  }
}
