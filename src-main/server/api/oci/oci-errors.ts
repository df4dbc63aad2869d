import { HttpError } from '../../http/errors.js'

/** The error codes of OCI's distribution-spec that Homeport answers with. */
export type OciErrorCode = 'BLOB_UNKNOWN' | 'DENIED' | 'MANIFEST_UNKNOWN' | 'NAME_INVALID' | 'NAME_UNKNOWN' | 'TOOMANYREQUESTS' | 'UNAUTHORIZED' | 'UNSUPPORTED'

/** An error as the OCI face answers it: the status, and distribution-spec's code in place of Homeport's. */
export function ociError(status: number, code: OciErrorCode, message: string, headers: Record<string, string> = {}): HttpError {
  const error = new HttpError(status, code.toLowerCase().replace(/_/g, ' '), message, undefined, headers)
  error.code = code
  return error
}
