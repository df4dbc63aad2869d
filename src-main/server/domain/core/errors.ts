/**
 * Errors the domain services throw. They carry no HTTP status: the HTTP layer maps each class to
 * one (http/errors.ts), and a protocol or management route renders it in its own format.
 *
 * Each carries a stable `code`, sent in the JSON:API error object: a client decides on it, never
 * on the message's words. A class has its own code; a rule whose breach a client acts on names a
 * more precise one (an organization's name taken, a version that exists).
 */
export class DomainError extends Error {
  static readonly code: string = 'error'
  readonly code: string

  constructor(message: string, code?: string) {
    super(message)
    this.name = new.target.name
    this.code = code ?? new.target.code
  }
}

/**
 * The resource does not exist, or the caller may not see it: the API does not tell which.
 * `forCallers` is false where no caller is involved (an upload link), so there is nothing to hide.
 */
export class NotFoundError extends DomainError {
  static override readonly code: string = 'not-found'

  constructor(
    message: string,
    readonly forCallers = true
  ) {
    super(message)
  }
}

/**
 * A version the gate (domain/gate/) does not offer: held by a cooldown, blocked, not on the allow
 * list, or waiting for approval. A 404 on every face, never 401/403 (which Terraform reads as bad
 * credentials), with the rule in its words; `until` is when a cooldown ends.
 */
export class HeldByGateError extends NotFoundError {
  static override readonly code = 'held-by-gate'

  constructor(
    message: string,
    readonly until?: string
  ) {
    super(message, false)
  }
}

/**
 * Input that breaks a rule. `attribute` names the offending input (camelCase path, `a.b`);
 * `further` are more rules the same input breaks, each its own error in the answer (as HCP lists them).
 */
export class InvalidInputError extends DomainError {
  static override readonly code = 'invalid-attribute'

  constructor(
    message: string,
    readonly attribute?: string,
    readonly further: string[] = [],
    code?: TakenCode
  ) {
    super(message, code)
  }
}

/** The codes of a name or version that is taken: the one rule clients act on by itself. */
export type TakenCode = 'name-taken' | 'module-exists' | 'provider-exists' | 'version-exists'

/** An operation this installation refuses as configured (public module curation disabled…). */
export class ForbiddenError extends DomainError {
  static override readonly code = 'forbidden'
}

/** The request conflicts with the resource's state (an upload link used twice…). */
export class ConflictError extends DomainError {
  static override readonly code = 'conflict'
}

/** Something that was valid once and no longer is (an expired upload link). */
export class ExpiredError extends DomainError {
  static override readonly code = 'expired'
}

/** A body or archive beyond a documented limit. */
export class LimitExceededError extends DomainError {
  static override readonly code = 'too-large'
}

/** A service Homeport depends on (the upstream public registry) cannot be reached. */
export class UnavailableError extends DomainError {
  static override readonly code = 'unavailable'
}

/** No credentials, or credentials that match nobody. */
export class UnauthenticatedError extends DomainError {
  static override readonly code = 'unauthenticated'
}

/** A service Homeport depends on (the upstream registry) answered with something it will not take: too large, or not what the protocol says. */
export class BadGatewayError extends DomainError {
  static override readonly code = 'bad-upstream'
}
