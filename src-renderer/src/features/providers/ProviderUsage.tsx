import { requiredProvidersBlock } from '@shared/provider-usage'
import { CopyButton } from '../../lib/copy-button'

/** The `required_providers` block to copy for a provider's version, its lines as Copy copies them (a narrow screen scrolls sideways). */
export function ProviderUsage({ source, version }: { source: string; version: string }) {
  const block = requiredProvidersBlock({ source, version })
  return (
    <section className="card padded stack-tight" aria-labelledby="provider-usage">
      <div className="snippet-header">
        <h2 id="provider-usage">Usage</h2>
        <CopyButton text={block} label="Copy usage" />
      </div>
      <pre className="keep-lines" aria-label="Usage" tabIndex={0}>
        {block.trimEnd()}
      </pre>
    </section>
  )
}
