import { makeSigningKey, providerRelease } from '../tests/helpers/providers.js'
import { ADMIN_TOKEN, api, paired, type Started } from './lib.js'
import { wrk, type WrkResult } from './protocol.js'

export interface GateFigure {
  versions: number
  without: WrkResult
  with: WrkResult
  /** The median of the rounds' ratios of req/s with the policy to without (each round measures both, back to back). */
  ratio: number
  rounds: number[]
}

const VERSIONS = 50

/**
 * Figure 13: the gate's cost on a protocol read. A mirrored provider with 50 versions, its network
 * mirror index.json (read from the store: the benchmark's Homeport reaches no upstream) read by wrk
 * with no policy, and with one in force (a 7-day cooldown, an exemption and a block: every version
 * decided, its sighting and requests read), in paired rounds that set the policy before each half.
 */
export async function measureGate(homeport: Started, { rounds = 6 } = {}): Promise<GateFigure> {
  const key = await makeSigningKey('Bench Gate')
  const headers = { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/vnd.api+json' }
  const base = `${homeport.url}/api/v2/admin/provider-mirror`
  for (let minor = 0; minor < VERSIONS; minor++) {
    const version = `1.${minor}.0`
    const release = await providerRelease('widget', version, ['linux_amd64'], key)
    const imported = await fetch(`${base}/releases/registry.terraform.io/gatebench/widget/${version}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ data: { type: 'provider-releases', attributes: { shasums: release.shasums.toString(), 'shasums-signature': release.signature.toString('base64'), 'signing-key': key.publicArmor, protocols: ['5.0'] } } })
    })
    if (imported.status !== 201) throw new Error(`the release ${version} was refused: ${await imported.text()}`)
    for (const file of release.zips.values()) {
      const put = await fetch(`${base}/packages/registry.terraform.io/gatebench/widget/${version}/${file.os}_${file.arch}?hash=zh:${file.shasum}`, {
        method: 'PUT',
        headers: { Authorization: headers.Authorization, 'Content-Type': 'application/zip' },
        body: new Uint8Array(file.bytes)
      })
      if (put.status !== 201) throw new Error(`the zip of ${version} was refused: ${await put.text()}`)
    }
  }
  const url = `${homeport.url}/api/registry/provider-mirror/v1/registry.terraform.io/gatebench/widget/index.json`
  const rules = [
    { effect: 'exempt', pattern: 'gatebench/*', versions: '< 1.40.0' },
    { effect: 'block', pattern: 'gatebench/widget', versions: '= 1.45.0', reason: 'bench' }
  ]
  const inForce = async (on: boolean) => {
    const current = await api(homeport.url, 'GET', '/admin/gate/policy')
    for (const rule of current.body.data.attributes.rules as Array<{ id: string }>) await api(homeport.url, 'DELETE', `/admin/gate/policy/rules/${rule.id}`)
    if (on) for (const rule of rules) await api(homeport.url, 'POST', '/admin/gate/policy/rules', { data: { type: 'gate-rules', attributes: rule } })
    await api(homeport.url, 'PATCH', '/admin/gate/policy', { data: { type: 'gate-policies', attributes: { cooldown: on ? '7d' : '0' } } })
  }
  const read = (on: boolean) => async () => {
    await inForce(on)
    return wrk(url, 3, '0')
  }
  // The first read with the policy records every version's sighting: the rounds measure reads, not that write.
  await inForce(true)
  const first = await fetch(url, { headers: { Authorization: headers.Authorization } })
  if (first.status !== 200) throw new Error(`index.json answered ${first.status}: ${await first.text()}`)
  const measured = await paired(rounds, read(true), read(false), (result) => result.rps)
  await inForce(false)
  const middle = (results: WrkResult[]) => results[Math.floor(results.length / 2)]!
  return { versions: VERSIONS, with: middle(measured.a), without: middle(measured.b), ratio: measured.ratio, rounds: measured.ratios }
}
