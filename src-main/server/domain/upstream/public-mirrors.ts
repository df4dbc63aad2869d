import type { Caller } from '../core/access.js'
import type { DownloadToken } from '../archives/download-links.js'
import { InvalidInputError } from '../core/errors.js'
import type { ProviderMirror } from '../providers/provider-mirror.js'
import type { PublicRegistryService } from './public-registry.js'
import { OPENTOFU_REGISTRY, TERRAFORM_REGISTRY } from '../../../shared/terraform-config.js'

/** One public registry Homeport mirrors (or two, from one upstream): its providers, kept apart per upstream, and its modules' protocol reads. */
export interface PublicMirror {
  /** It knows the public names it answers for (`publicNames`) and its upstream's host. */
  providers: ProviderMirror
  modules: PublicRegistryService
}

/**
 * The public registries Homeport mirrors, found by the hostname a provider or module address names:
 * `registry.terraform.io` from `--upstream`, `registry.opentofu.org` from `--opentofu-upstream` (one
 * mirror for both names when the two are the same address). Each keeps its providers apart, with its
 * upstream's own signatures: the two registries sign the same providers with different keys, and
 * OpenTofu verifies every host's but its own default's. Curated public modules are one set for both
 * (the two registries index the same repositories under the same addresses); each mirror pulls through
 * from its own upstream.
 */
export class PublicMirrors {
  constructor(private readonly mirrors: readonly PublicMirror[]) {}

  /** Registry.terraform.io's mirror (the one Homeport's public prefixes have always served). */
  get terraform(): PublicMirror {
    return this.for(TERRAFORM_REGISTRY)
  }

  get openTofu(): PublicMirror {
    return this.for(OPENTOFU_REGISTRY)
  }

  /** Every public registry name mirrored here. */
  get names(): string[] {
    return this.mirrors.flatMap((mirror) => mirror.providers.publicNames)
  }

  /** The mirror that answers for `hostname` (a public name, or an upstream's own host), if any. */
  find(hostname: string): PublicMirror | undefined {
    return this.mirrors.find((mirror) => mirror.providers.answersFor(hostname))
  }

  /** The mirror for `hostname`, or a refusal that names those there are. */
  for(hostname: string): PublicMirror {
    const found = this.find(hostname)
    if (!found) throw new InvalidInputError(`Homeport mirrors the public registries ${this.names.join(' and ')}, not ${hostname}.`, 'hostname')
    return found
  }

  /**
   * Every mirrored provider, each with the public name it is served under; for a caller, with only
   * the versions the gate offers it (without one, all: the site admin's view of what is kept).
   */
  async providers(caller?: Caller) {
    const listed = await Promise.all(
      this.mirrors.map(async (mirror) =>
        Promise.all((await mirror.providers.list()).map(async (record) => ({ record: caller ? await mirror.providers.offeredRecord(caller, record) : record, publicName: mirror.providers.publicName })))
      )
    )
    return listed.flat()
  }

  /** A mirrored file at a signed location (each mirror knows its own). */
  async fileFor(token: DownloadToken) {
    for (const mirror of this.mirrors) {
      const file = await mirror.providers.fileFor(token)
      if (file) return file
    }
    return undefined
  }
}
