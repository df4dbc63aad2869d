import { useMemo } from 'react'
import Prism from 'prismjs'
import 'prismjs/components/prism-hcl'

/** Files read as HCL: Terraform's own, its variable files, and HCL's. */
const HCL_FILE = /\.(tf|tfvars|hcl)$/

/**
 * A file's text as code: Terraform's files highlighted as HCL (Prism, which escapes the text it is
 * given: the HTML it returns holds only its own spans), any other file as it is.
 */
export function HighlightedCode({ path, text }: { path: string; text: string }) {
  const html = useMemo(() => (HCL_FILE.test(path) ? Prism.highlight(text, Prism.languages.hcl!, 'hcl') : undefined), [path, text])
  return html === undefined ? <code>{text}</code> : <code className="language-hcl" dangerouslySetInnerHTML={{ __html: html }} />
}
