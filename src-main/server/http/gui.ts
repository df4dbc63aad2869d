import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { send } from '@koa/send'
import type { Context, Next } from 'koa'

/**
 * Everything the GUI loads comes from this server: no CDN, no web fonts, no inline scripts.
 * Images may be data: URIs (icons) and HTTPS links in READMEs are not loaded, only linked.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join('; ')

/** Whether there is a built renderer here to serve. */
function built(rendererDir: string | undefined): rendererDir is string {
  return rendererDir !== undefined && existsSync(join(rendererDir, 'index.html'))
}

/**
 * Answers with the GUI's page (`index.html`, whose script then draws the route the path names), and
 * says whether it could: false when there is no built renderer.
 */
export function guiPage(rendererDir: string | undefined) {
  return async (ctx: Context): Promise<boolean> => {
    if (!built(rendererDir)) return false
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    await sendPage(ctx, rendererDir)
    return true
  }
}

/** Sends `index.html` (the caller has set its Content-Security-Policy and knows it is built). */
async function sendPage(ctx: Context, rendererDir: string): Promise<void> {
  await send(ctx, 'index.html', { root: rendererDir })
}

/**
 * Serves the built renderer (`out/renderer`) at `/`. Paths that name no file get index.html, so
 * the GUI's own routes survive a reload. Hashed assets are cached for good; the page is not.
 */
export function serveGui(rendererDir: string | undefined) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const apiPath = /^\/(api|archivist|\.well-known)(\/|$)/.test(ctx.path)
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || apiPath || !built(rendererDir)) {
      await next()
      return
    }
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    const asset = ctx.path.startsWith('/assets/')
    const served = await send(ctx, ctx.path, {
      root: rendererDir,
      index: 'index.html',
      maxage: asset ? 365 * 24 * 3600 * 1000 : 0,
      immutable: asset
    }).catch((error: { status?: number }) => {
      if (error.status === 404) return undefined
      throw error
    })
    if (served) return
    if (asset) {
      await next()
      return
    }
    await sendPage(ctx, rendererDir)
  }
}
