/**
 * Errors the domain services throw. They carry no HTTP status: the HTTP layer maps each class to
 * one (http/errors.ts), and a protocol or management route renders it in its own format.
 */
export class DomainError extends Error {
  constructor(message: string) {
    super(message)
    this.name = new.target.name
  }
}

/**
 * The resource does not exist, or the caller may not see it: the API does not tell which.
 * `forCallers` is false where no caller is involved (an upload link), so there is nothing to hide.
 */
export class NotFoundError extends DomainError {
  constructor(
    message: string,
    readonly forCallers = true
  ) {
    super(message)
  }
}

/**
 * Input that breaks a rule. `attribute` names the offending input (camelCase path, `a.b`);
 * `further` are more rules the same input breaks, each its own error in the answer (as HCP lists them).
 */
export class InvalidInputError extends DomainError {
  constructor(
    message: string,
    readonly attribute?: string,
    readonly further: string[] = []
  ) {
    super(message)
  }
}

/** An operation this installation refuses as configured (public module curation disabled…). */
export class ForbiddenError extends DomainError {}

/** The request conflicts with the resource's state (an upload link used twice…). */
export class ConflictError extends DomainError {}

/** Something that was valid once and no longer is (an expired upload link). */
export class ExpiredError extends DomainError {}

/** A body or archive beyond a documented limit. */
export class LimitExceededError extends DomainError {}

/** A service Homeport depends on (the upstream public registry) cannot be reached. */
export class UnavailableError extends DomainError {}

/** No credentials, or credentials that match nobody. */
export class UnauthenticatedError extends DomainError {}

/** A service Homeport depends on (the upstream registry) answered with something it will not take: too large, or not what the protocol says. */
export class BadGatewayError extends DomainError {}
