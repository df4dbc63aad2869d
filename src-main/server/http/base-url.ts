import type { Context } from 'koa'

/** The public URL of the server for a request: the configured --base-url, else what the client called. */
export type BaseUrl = (ctx: Context) => string

export function baseUrlResolver(configured: string | undefined): BaseUrl {
  if (configured) {
    const fixed = configured.replace(/\/+$/, '')
    return () => fixed
  }
  return (ctx) => `${ctx.protocol}://${ctx.host}`
}
