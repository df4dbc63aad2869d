import { useMemo } from 'react'
import DOMPurify from 'dompurify'
import { marked } from 'marked'

/**
 * A README, rendered. Markdown may carry HTML, so the result goes through DOMPurify: no script,
 * no event handler, no iframe or form from a README ever reaches the page (and the page's CSP
 * would refuse them anyway). Links open outside the app; images from the web are not loaded.
 */
export function Markdown({ source }: { source: string }) {
  const html = useMemo(() => {
    const rendered = marked.parse(source, { async: false, gfm: true })
    return DOMPurify.sanitize(rendered, {
      FORBID_TAGS: ['style', 'form', 'input', 'button', 'iframe', 'object', 'embed'],
      FORBID_ATTR: ['style']
    })
  }, [source])
  return (
    <div
      className="markdown"
      onClick={(event) => {
        const link = (event.target as HTMLElement).closest('a')
        // Compare parsed origins: `http://127.0.0.1:4780@evil.example/` starts like this page's URL.
        if (link?.href && new URL(link.href).origin !== window.location.origin) {
          event.preventDefault()
          window.open(link.href, '_blank', 'noopener,noreferrer')
        }
      }}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  )
}
