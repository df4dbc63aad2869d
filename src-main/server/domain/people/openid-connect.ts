import * as oidc from 'openid-client'
import { groupsOf } from './team-mapping.js'
import type { SignedInIdentity } from './people.js'

/** How Homeport is registered at the identity provider, and what it reads from it. */
export interface OpenIdSettings {
  issuer: string
  clientId: string
  clientSecret: string
  /** The scopes asked for: `openid`, and what brings names and groups (providers differ: Google has no `groups` scope). */
  scopes: readonly string[]
  /** The claim that lists a person's groups (from the ID token, else from userinfo). */
  groupsClaim: string
  /** The provider's name for the sign-in page. */
  name?: string
}

/** What a sign-in started and its callback must match: kept in the browser, sealed (api/homeport/sign-in.ts). */
export interface PendingSignIn {
  state: string
  nonce: string
  verifier: string
}

/** Why a sign-in failed, in words for the person at the browser; `provider` when the identity provider did not answer. */
export class SignInError extends Error {
  constructor(
    message: string,
    readonly provider = false
  ) {
    super(message)
  }
}

/** Seconds the identity provider has to answer discovery, a token request or userinfo. */
const TIMEOUT_SECONDS = 10

/**
 * The relying party of single sign-on (OpenID Connect's authorization code flow, with PKCE, `state` and
 * `nonce`), through `openid-client`, a certified implementation: discovery from the issuer's
 * `.well-known/openid-configuration`, then, per sign-in, the provider's authorization URL and the
 * callback's code exchanged for an ID token whose signature, issuer, audience, expiry and nonce are
 * checked. The issuer is the site admin's configuration; nothing a caller sends chooses where it goes.
 */
export class OpenIdConnect {
  private discovered: Promise<oidc.Configuration> | undefined

  constructor(
    private readonly settings: OpenIdSettings,
    /** The time ID tokens' expiry is checked by; tests move it instead of waiting. */
    private readonly clock: () => number = Date.now
  ) {}

  /** The provider's name for the sign-in page: the one configured, or the issuer's host. */
  get name(): string {
    return this.settings.name ?? new URL(this.settings.issuer).host
  }

  /** Where to send the browser to sign in, and what its callback must match. */
  async begin(redirectUri: string): Promise<{ url: string; pending: PendingSignIn }> {
    const config = await this.configuration()
    const pending = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() }
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes.join(' '),
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce
    })
    return { url: url.href, pending }
  }

  /** The person the callback (`callbackUrl`, as the browser called it) signs in, checked against `pending`. */
  async finish(callbackUrl: URL, pending: PendingSignIn): Promise<SignedInIdentity> {
    const config = this.onClock(await this.configuration())
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>
    try {
      tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true })
    } catch (error) {
      throw refusal(error)
    }
    const claims = tokens.claims()
    if (!claims) throw new SignInError('The identity provider sent no ID token.')
    let groups: unknown = claims[this.settings.groupsClaim]
    let profile: Record<string, unknown> = claims
    if (groups === undefined) {
      // Providers that follow the spec to the letter put requested claims in userinfo only.
      try {
        profile = { ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims }
      } catch (error) {
        throw refusal(error)
      }
      groups = profile[this.settings.groupsClaim]
    }
    const text = (name: string) => {
      const value = profile[name]
      return typeof value === 'string' && value !== '' ? value : undefined
    }
    const username = text('preferred_username') ?? text('email') ?? claims.sub
    return { issuer: claims.iss, subject: claims.sub, username, displayName: text('name') ?? username, email: text('email') ?? null, groups: groupsOf(groups) }
  }

  /** The provider's configuration, discovered once; a failed discovery is tried again at the next sign-in. */
  private configuration(): Promise<oidc.Configuration> {
    this.discovered ??= this.discover().catch((error: unknown) => {
      this.discovered = undefined
      throw error
    })
    return this.discovered
  }

  private async discover(): Promise<oidc.Configuration> {
    try {
      return await oidc.discovery(new URL(this.settings.issuer), this.settings.clientId, { client_secret: this.settings.clientSecret }, oidc.ClientSecretBasic(this.settings.clientSecret), {
        execute: this.checks(),
        timeout: TIMEOUT_SECONDS
      })
    } catch (error) {
      throw new SignInError(`The identity provider at ${this.settings.issuer} did not answer its discovery document: ${reason(error)}`, true)
    }
  }

  /** Every ID token's signature checked against the provider's keys; http:// only where options.ts let it through (a provider on this machine). */
  private checks(): Array<(config: oidc.Configuration) => void> {
    return [...(new URL(this.settings.issuer).protocol === 'http:' ? [oidc.allowInsecureRequests] : []), oidc.enableNonRepudiationChecks]
  }

  /** The configuration on Homeport's clock, where that is not the machine's (a test that moved it): expiry is checked by it. */
  private onClock(config: oidc.Configuration): oidc.Configuration {
    const skew = Math.round((this.clock() - Date.now()) / 1000)
    if (skew === 0) return config
    const moved = new oidc.Configuration(config.serverMetadata(), this.settings.clientId, { client_secret: this.settings.clientSecret, [oidc.clockSkew]: skew }, oidc.ClientSecretBasic(this.settings.clientSecret))
    for (const check of this.checks()) check(moved)
    return moved
  }
}

/** What a failed check means, for the checks people can act on. */
const MEANINGS: Record<string, string> = {
  OAUTH_JWT_TIMESTAMP_CHECK_FAILED: 'the ID token has expired, or is not valid yet: check that the clocks of Homeport and the identity provider agree'
}

/** A failed exchange or check, as a SignInError: a provider that did not answer, or a response that did not pass a check. */
function refusal(error: unknown): SignInError {
  if (error instanceof SignInError) return error
  const meaning = MEANINGS[(error as { code?: string }).code ?? '']
  if (meaning) return new SignInError(`The identity provider's answer was refused: ${meaning} (${reason(error)}).`)
  const unreachable = error instanceof TypeError || (error as { name?: string }).name === 'TimeoutError' || (error as { name?: string }).name === 'AbortError'
  return new SignInError(unreachable ? `The identity provider did not answer: ${reason(error)}` : `The identity provider's answer was refused: ${reason(error)}`, unreachable)
}

/** An error's own words, with its cause's (openid-client wraps the provider's OAuth error). */
function reason(error: unknown): string {
  const { message, cause, code } = error as { message?: string; cause?: unknown; code?: string }
  const described = (cause as { error_description?: string; error?: string } | undefined)?.error_description ?? (cause as { error?: string } | undefined)?.error ?? (cause instanceof Error ? cause.message : undefined)
  return [message ?? String(error), described && `(${described})`, code && !described ? `(${code})` : undefined].filter(Boolean).join(' ')
}
