import { createHash, randomBytes } from 'node:crypto'
import type { CliTokenRecord, LoginCodeRecord, OrganizationRecord, PendingLoginRecord, UserRecord } from '../../store/records.js'
import { RecordMissingError, UniqueConstraintError } from '../../store/errors.js'
import { LOGIN_CODE, TOKEN_ID, USER_LOGIN_CODE, type Store } from '../../store/port.js'
import { accountOf, describeCaller, type Account, type Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import { newId, now } from '../core/ids.js'
import type { OrganizationService } from '../organizations/organizations.js'
import type { AuditTrailService } from '../organizations/audit-trail.js'
import type { Origin } from '../core/origin.js'
import { hashToken, newToken, tokenExpiry } from '../core/tokens.js'

/** The client id Terraform's `login.v1` sends, as Homeport's discovery names it. */
export const TERRAFORM_CLIENT_ID = 'terraform-cli'
/** How long an authorization code may wait for its exchange. */
const CODE_TTL_MS = 5 * 60 * 1000

/** What Terraform asks for on the authorization page (its query), and what the user chose there. */
export interface AuthorizationRequest {
  clientId: string
  redirectUri: string
  codeChallenge: string
  codeChallengeMethod: string
  state: string
  organization: string
  teamId: string
  expiredAt?: string | null
}

/** An OAuth error, as the token endpoint answers it (RFC 6749 §5.2). */
export class OAuthError extends Error {
  constructor(
    readonly error: 'invalid_request' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_client',
    description: string
  ) {
    super(description)
  }
}

/**
 * `terraform login` (login.v1: OAuth 2.0 authorization code with PKCE, as Terraform's client does it).
 * Whoever is signed in to the GUI approves. With a token (the site admin's, a team's), the token it
 * issues acts as one of the organization's teams, chosen there, and is kept beside the organization,
 * listed and revoked like any other. A person signed in through single sign-on gets a token of their
 * own (domain/people/), which acts with their teams. Authorization codes are single-use and
 * short-lived, kept (as hashes) with the organization or the person until exchanged, so any replica
 * takes the exchange and only one can.
 */
export class TerraformLogin {
  constructor(
    private readonly store: Store,
    private readonly organizations: OrganizationService,
    private readonly audit: AuditTrailService
  ) {}

  /** The approval: checks the request and the approver's right to hand out the rights; the URL Terraform waits on, with a code. */
  async authorize(caller: Caller, request: AuthorizationRequest): Promise<string> {
    if (request.clientId !== TERRAFORM_CLIENT_ID) throw new InvalidInputError(`Unknown client "${request.clientId}": only the Terraform CLI (${TERRAFORM_CLIENT_ID}) logs in here.`, 'clientId')
    const redirect = loopbackRedirect(request.redirectUri)
    if (request.codeChallengeMethod !== 'S256') throw new InvalidInputError('Only the S256 code challenge is accepted (as Terraform sends it).', 'codeChallengeMethod')
    if (!/^[A-Za-z0-9_-]{43}$/.test(request.codeChallenge)) throw new InvalidInputError('The code challenge is not a base64url SHA-256.', 'codeChallenge')
    if (!request.state || request.state.length > 200) throw new InvalidInputError('The request has no state to return.', 'state')
    const code = randomBytes(32).toString('base64url')
    const pending: PendingLoginRecord = {
      codeHash: hashToken(code),
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      tokenExpiredAt: tokenExpiry(request.expiredAt),
      expiresAt: new Date(Date.now() + CODE_TTL_MS).toISOString()
    }
    if (caller.kind === 'user') await this.approveForPerson(caller, pending)
    else await this.approveForTeam(caller, request, pending)
    redirect.searchParams.set('code', code)
    redirect.searchParams.set('state', request.state)
    return redirect.toString()
  }

  /** A team's rights, handed out by its owners or the team itself. */
  private async approveForTeam(caller: Caller, request: AuthorizationRequest, pending: PendingLoginRecord): Promise<void> {
    const org = await this.organizations.named(request.organization)
    const team = org?.teams.find((candidate) => candidate.id === request.teamId)
    const notFound = () => new NotFoundError(`team "${request.teamId}" of ${request.organization} not found`)
    if (!org || !team) throw notFound()
    // Owners hand out any team's rights; a team, its own.
    const approval = { permission: 'approve terraform login', org, action: 'approve', resource: { type: 'team', id: team.id, name: `terraform login as ${org.name}/${team.name}` } } as const
    await this.audit.check(caller, approval, notFound, { teamId: team.id })
    const waiting: LoginCodeRecord = { ...pending, teamId: team.id, approvedBy: describeCaller(caller, org) }
    await this.store.organizations.update(org.id, (draft) => {
      draft.loginCodes = [...unexpired(draft.loginCodes), waiting]
    })
    await this.audit.done({ ...approval, author: caller })
  }

  /** A person's own token: their teams' rights, whatever organization and team the page named. */
  private async approveForPerson(caller: Caller & { kind: 'user' }, pending: PendingLoginRecord): Promise<void> {
    const approval = { permission: 'manage own tokens', org: undefined, action: 'approve', resource: { type: 'authentication-token', id: caller.userId, name: `terraform login as ${caller.username}` } } as const
    await this.audit.check(caller, approval, () => new NotFoundError('account not found'))
    await this.store.users.update(caller.userId, (draft) => {
      draft.loginCodes = [...unexpired(draft.loginCodes), pending]
    })
    await this.audit.done({ ...approval, author: caller })
  }

  /** The token endpoint: a code, once, for the client that asked for it and proves it with the PKCE verifier. */
  async exchange(form: Record<string, string | undefined>, origin?: Origin): Promise<string> {
    if (form.grant_type !== 'authorization_code') throw new OAuthError('unsupported_grant_type', 'Only grant_type=authorization_code is supported.')
    if (form.client_id !== TERRAFORM_CLIENT_ID) throw new OAuthError('invalid_client', `Unknown client "${form.client_id ?? ''}".`)
    const codeHash = form.code ? hashToken(form.code) : undefined
    if (!codeHash) throw unusable()
    const org = await this.store.organizations.findBy(LOGIN_CODE, codeHash)
    if (org) return this.exchangeForTeam(org, codeHash, form, origin)
    const person = await this.store.users.findBy(USER_LOGIN_CODE, codeHash)
    if (person) return this.exchangeForPerson(person, codeHash, form, origin)
    throw unusable()
  }

  private async exchangeForTeam(org: OrganizationRecord, codeHash: string, form: Record<string, string | undefined>, origin: Origin | undefined): Promise<string> {
    const token = newToken()
    const tokenId = newId('at')
    let teamId = ''
    // Used once, whatever happens next: taken out in the same write that checks it, so two exchanges (two replicas) cannot both have it.
    await takeCode(() =>
      this.store.organizations.update(org.id, (draft) => {
        const pending = takePending(draft, codeHash, form)
        if (pending instanceof OAuthError) return pending
        if (!draft.teams.some((team) => team.id === pending.teamId)) return new OAuthError('invalid_grant', 'The team the login was approved for is gone.')
        teamId = pending.teamId
        draft.cliTokens.push({ id: tokenId, hash: hashToken(token), createdAt: now(), description: CLI_TOKEN_DESCRIPTION, expiredAt: pending.tokenExpiredAt, teamId: pending.teamId, approvedBy: pending.approvedBy })
        return undefined
      })
    )
    const team = org.teams.find((candidate) => candidate.id === teamId)
    const resource = { type: 'authentication-token', id: tokenId, name: `a terraform login token of team ${org.name}/${team?.name ?? teamId}` } as const
    await this.audit.done({ author: { kind: 'link', link: 'terraform login code', origin }, permission: 'approve terraform login', org, action: 'create', resource })
    return token
  }

  private async exchangeForPerson(person: UserRecord, codeHash: string, form: Record<string, string | undefined>, origin: Origin | undefined): Promise<string> {
    const token = newToken()
    const tokenId = newId('at')
    await takeCode(() =>
      this.store.users.update(person.id, (draft) => {
        const pending = takePending(draft, codeHash, form)
        if (pending instanceof OAuthError) return pending
        draft.tokens.push({ id: tokenId, hash: hashToken(token), createdAt: now(), description: CLI_TOKEN_DESCRIPTION, expiredAt: pending.tokenExpiredAt, createdBy: person.id })
        return undefined
      })
    )
    const resource = { type: 'authentication-token', id: tokenId, name: `a terraform login token of ${person.username}` } as const
    await this.audit.done({ author: { kind: 'link', link: 'terraform login code', origin }, permission: 'manage own tokens', org: undefined, action: 'create', resource })
    return token
  }

  /** The tokens terraform login obtained in an organization: all of them for owners, a team's own for the team. */
  async list(caller: Caller, orgName: string): Promise<{ org: OrganizationRecord; tokens: CliTokenRecord[] }> {
    const org = await this.organizations.read(caller, orgName)
    const tokens = org.cliTokens.filter((token) => authorize(caller, 'approve terraform login', org, { teamId: token.teamId }))
    return { org, tokens }
  }

  async read(caller: Caller, tokenId: string): Promise<{ org: OrganizationRecord; token: CliTokenRecord }> {
    const org = await this.store.organizations.findBy(TOKEN_ID, tokenId)
    const token = org?.cliTokens.find((candidate) => candidate.id === tokenId)
    const visible = org && token && (authorize(caller, 'approve terraform login', org, { teamId: token.teamId }))
    if (!org || !token || !visible) throw new NotFoundError(`authentication token "${tokenId}" not found`)
    return { org, token }
  }

  /** Revokes a token at once (owners, or the team it acts as). */
  async revoke(caller: Caller, tokenId: string): Promise<void> {
    const org = await this.store.organizations.findBy(TOKEN_ID, tokenId)
    const token = org?.cliTokens.find((candidate) => candidate.id === tokenId)
    const notFound = () => new NotFoundError(`authentication token "${tokenId}" not found`)
    if (!org || !token) throw notFound()
    const revocation = { permission: 'approve terraform login', org, action: 'destroy', resource: { type: 'authentication-token', id: tokenId, name: `a terraform login token of team ${org.name}/${org.teams.find((team) => team.id === token.teamId)?.name ?? token.teamId}` } } as const
    await this.audit.check(caller, revocation, notFound, { teamId: token.teamId })
    await this.store.organizations.update(org.id, (draft) => {
      draft.cliTokens = draft.cliTokens.filter((candidate) => candidate.id !== tokenId)
    })
    await this.audit.done({ ...revocation, author: caller })
  }

  /** Who a token is, as HCP's `account/details` says it (see accountOf). */
  async account(caller: Caller): Promise<Account> {
    if (caller.kind === 'site-admin' || caller.kind === 'user') return accountOf(caller, undefined)
    const org = await this.store.organizations.get(caller.organizationId)
    if (!org) throw new NotFoundError('account not found')
    return accountOf(caller, org)
  }
}

/** What a token made by terraform login is called in lists. */
const CLI_TOKEN_DESCRIPTION = 'Terraform CLI (terraform login)'

const unusable = () => new OAuthError('invalid_grant', 'The authorization code is unknown, used already, or expired: run terraform login again.')

/**
 * Takes the login whose code this is out of a record's pending ones (the expired go too), and checks it
 * against the form: gone or expired, another redirect URI, or a verifier that does not match (PKCE) is
 * an OAuth error. Runs inside the write that makes the token, so a code is used once.
 */
function takePending<T extends PendingLoginRecord>(draft: { loginCodes: T[] }, codeHash: string, form: Record<string, string | undefined>): T | OAuthError {
  const pending = draft.loginCodes.find((candidate) => candidate.codeHash === codeHash)
  draft.loginCodes = unexpired(draft.loginCodes).filter((candidate) => candidate !== pending)
  if (!pending || Date.parse(pending.expiresAt) < Date.now()) return unusable()
  if (form.redirect_uri !== pending.redirectUri) return new OAuthError('invalid_grant', 'redirect_uri is not the one the code was issued for.')
  const challenge = createHash('sha256').update(form.code_verifier ?? '').digest('base64url')
  if (!form.code_verifier || challenge !== pending.codeChallenge) return new OAuthError('invalid_grant', 'The code verifier does not match the code challenge (PKCE).')
  return pending
}

/** Runs the write that takes a code out and makes the token, and answers what it found wrong as OAuth does. */
async function takeCode(write: () => Promise<{ result: OAuthError | undefined }>): Promise<void> {
  try {
    const { result: problem } = await write()
    if (problem) throw problem
  } catch (error) {
    if (error instanceof UniqueConstraintError) throw new Error('token collision, try again', { cause: error })
    if (error instanceof RecordMissingError) throw unusable()
    throw error
  }
}

/** The approvals still waiting within their code's lifetime (expired ones go at the record's next write). */
function unexpired<T extends PendingLoginRecord>(codes: readonly T[]): T[] {
  const now = Date.now()
  return codes.filter((code) => Date.parse(code.expiresAt) >= now)
}

/** Terraform's callback: `http://localhost:<port>/login` (or 127.0.0.1). A code goes nowhere else. */
function loopbackRedirect(value: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new InvalidInputError('redirect_uri is not a URL.', 'redirectUri')
  }
  // Terraform's own listener answers /login alone (internal/command/login.go): any other path or a query of the caller's is not it.
  const listener = url.pathname === '/login' && url.search === '' && url.hash === '' && !url.username && !url.password
  if (url.protocol !== 'http:' || !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || url.port === '' || !listener) {
    throw new InvalidInputError(`redirect_uri must be Terraform's own listener on this machine (http://localhost:<port>/login), not ${value}.`, 'redirectUri')
  }
  return url
}
