/**
 * Headers every answer carries, whether Koa or a fast path (protocol-cache.ts, signed-files.ts)
 * makes it: no content sniffing (a stored README or archive is never taken for a page), and no
 * Referer sent on from the GUI (its URLs name private modules).
 */
export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer'
}
