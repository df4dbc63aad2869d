import type { Context } from 'koa'
import { HttpError } from './errors.js'

type Json = Record<string, unknown>

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function invalid(pointer: string, detail: string): HttpError {
  return new HttpError(422, 'invalid attribute', detail, { pointer })
}

/**
 * Typed access to a JSON:API `attributes` object (or an object nested in it). Each getter
 * returns undefined for an absent attribute and answers 422, pointing at the attribute, when
 * one is present with the wrong type. Attributes no getter asks for are ignored, as clients
 * such as go-tfe send attributes of newer API versions.
 */
export class Attributes {
  constructor(
    private readonly values: Json,
    private readonly pointer: string
  ) {}

  has(name: string): boolean {
    return this.values[name] !== undefined
  }

  /** The names of the attributes present. */
  names(): string[] {
    return Object.keys(this.values).filter((name) => this.values[name] !== undefined)
  }

  /** An attribute of a shape the getters do not cover, for the caller to check. */
  raw(name: string): unknown {
    return this.values[name]
  }

  string(name: string): string | undefined {
    return this.read(name, (value): value is string => typeof value === 'string', 'a string')
  }

  nullableString(name: string): string | null | undefined {
    return this.read(name, (value): value is string | null => value === null || typeof value === 'string', 'a string or null')
  }

  boolean(name: string): boolean | undefined {
    return this.read(name, (value): value is boolean => typeof value === 'boolean', 'true or false')
  }

  integer(name: string): number | undefined {
    return this.read(name, (value): value is number => Number.isSafeInteger(value), 'a whole number')
  }

  nullableInteger(name: string): number | null | undefined {
    return this.read(name, (value): value is number | null => value === null || Number.isSafeInteger(value), 'a whole number or null')
  }

  /** An array of strings; null (go-tfe's empty list) reads as null. */
  nullableStringArray(name: string): string[] | null | undefined {
    return this.read(name, (value): value is string[] | null => value === null || (Array.isArray(value) && value.every((item) => typeof item === 'string')), 'a list of strings or null')
  }

  /**
   * An attribute that must be there: a non-empty string, or (with `object`) an object. Absent or
   * empty, it answers 422 pointing at it, with `why` (or "<name> is required.").
   */
  required(name: string, why?: string): string
  required(name: string, why: string | undefined, kind: 'object'): Attributes
  required(name: string, why?: string, kind: 'string' | 'object' = 'string'): string | Attributes {
    const value = kind === 'object' ? this.object(name) : this.string(name)
    if (value === undefined || value === '') throw this.invalid(name, why ?? `${name} is required.`)
    return value
  }

  /** The 422 for an attribute whose value is not one the endpoint takes, pointing at it. */
  invalid(name: string, detail: string): HttpError {
    return invalid(`${this.pointer}/${name}`, detail)
  }

  object(name: string): Attributes | undefined {
    const value = this.read(name, isObject, 'an object')
    return value === undefined ? undefined : new Attributes(value, `${this.pointer}/${name}`)
  }

  private read<T>(name: string, accepts: (value: unknown) => value is T, expected: string): T | undefined {
    const value = this.values[name]
    if (value === undefined) return undefined
    if (!accepts(value)) throw invalid(`${this.pointer}/${name}`, `${name} must be ${expected}.`)
    return value
  }
}

export interface ResourceDocument {
  id: string | undefined
  attributes: Attributes
  relationships: Json
}

/** The request body, which must be a JSON object (the body parser leaves `{}` when there is none). */
export function requestBody(ctx: Context): Json {
  const body: unknown = ctx.request.body
  if (!isObject(body) || Object.keys(body).length === 0) {
    throw new HttpError(422, 'invalid document', 'The request needs a JSON:API document as its body.', { pointer: '' })
  }
  return body
}

/** Reads `{data: {type, attributes, relationships}}`, insisting on the resource type. */
/**
 * The `data` of a JSON:API document of `type`. `typeMayBeEmpty`: go-tfe sends `"type": ""` for
 * some resources (its options types have no primary field), and HCP accepts it; so does Homeport.
 */
export function readResource(ctx: Context, type: string, { typeMayBeEmpty = false } = {}): ResourceDocument {
  const data = requestBody(ctx).data
  if (!isObject(data)) throw invalid('/data', 'The document needs a "data" object.')
  if (data.type !== type && !(typeMayBeEmpty && (data.type === '' || data.type === undefined))) throw invalid('/data/type', `data.type must be "${type}".`)
  if (data.id !== undefined && typeof data.id !== 'string') throw invalid('/data/id', 'data.id must be a string.')
  const attributes = data.attributes ?? {}
  if (!isObject(attributes)) throw invalid('/data/attributes', 'data.attributes must be an object.')
  const relationships = data.relationships ?? {}
  if (!isObject(relationships)) throw invalid('/data/relationships', 'data.relationships must be an object.')
  return { id: data.id, attributes: new Attributes(attributes, '/data/attributes'), relationships }
}

/** The id of a to-one relationship (`relationships.<name>.data.id`), null when cleared, undefined when absent. */
export function relationshipId(document: ResourceDocument, name: string, type: string): string | null | undefined {
  const relationship = document.relationships[name]
  if (relationship === undefined) return undefined
  const pointer = `/data/relationships/${name}`
  if (!isObject(relationship) || !('data' in relationship)) throw invalid(pointer, `${name} must be {"data": …}.`)
  const data = relationship.data
  if (data === null) return null
  if (!isObject(data) || data.type !== type || typeof data.id !== 'string') {
    throw invalid(`${pointer}/data`, `${name}.data must be null or {"type": "${type}", "id": "…"}.`)
  }
  return data.id
}

/** Reads `{data: [{type, id}, …]}`, a to-many relationship document; returns the ids. */
export function readIdentifiers(ctx: Context, type: string): string[] {
  const data = requestBody(ctx).data
  if (!Array.isArray(data)) throw invalid('/data', 'The document needs a "data" array.')
  return data.map((item: unknown, index) => {
    if (!isObject(item) || item.type !== type || typeof item.id !== 'string') {
      throw invalid(`/data/${index}`, `Each item must be {"type": "${type}", "id": "…"}.`)
    }
    return item.id
  })
}

/** Sends a JSON:API document. */
export function sendDocument(ctx: Context, status: number, document: unknown): void {
  const include = ctx.query.include
  if (include !== undefined && include !== '' && ctx.method === 'GET' && ctx.state.includeRead !== true) {
    throw new HttpError(400, 'bad request', `Cannot include "${String(include)}": this endpoint includes no related resources.`, { parameter: 'include' })
  }
  ctx.status = status
  ctx.type = 'application/vnd.api+json'
  ctx.body = document
}
