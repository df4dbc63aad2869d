import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { moduleBlock } from '@shared/module-usage'
import { CopyButton } from '../../lib/copy-button'
import { useSession } from '../../lib/session'
import { serverInfoOptions } from '../terraform/api'
import { docsOptions, partsOf, type ModuleAddress } from './api'
import { AppLink } from '../../app/link'

/**
 * How to use the module (or the part shown) at a version: a `module` block with its required
 * inputs, which the user can fill in here before copying it (terrareg's usage builder); an input
 * left empty gets an empty value of its type, with the type beside it.
 */
export function UsageCard({ address, version, part }: { address: ModuleAddress; version: string; part: string }) {
  const { client } = useSession()
  const info = useQuery(serverInfoOptions(client))
  const docs = useQuery(docsOptions(client, address, version))
  /** What the user typed, by part and input, so switching parts keeps each part's values. */
  const [values, setValues] = useState<Record<string, string>>({})
  if (!info.data) return null
  const shown = docs.data && partsOf(docs.data).find((candidate) => candidate.path === part)
  const required = shown?.inputs.filter((input) => input.required) ?? []
  const key = (name: string) => `${part}\n${name}`
  const snippet = moduleBlock(
    { hostname: info.data.registryHostname, namespace: address.namespace, name: address.name, provider: address.provider, version, part },
    required.map((input) => ({ name: input.name, type: input.type, value: values[key(input.name)] }))
  )
  return (
    <div className="card padded stack-tight">
      <div className="snippet-header">
        <h2>Usage</h2>
        <CopyButton text={snippet} label="Copy usage" />
      </div>
      <pre className="keep-lines" aria-label="Usage" tabIndex={0}>
        {snippet}
      </pre>
      {required.length > 0 && (
        <details className="usage-builder">
          <summary>
            Fill in the {required.length} required input{required.length === 1 ? '' : 's'}
          </summary>
          <div className="stack-tight">
            {required.map((input) => (
              <div className="field" key={input.name}>
                <label htmlFor={`usage-${input.name}`}>
                  <code>{input.name}</code> <span className="muted">{input.type.replace(/\s+/g, ' ') || 'any type'}</span>
                </label>
                <input
                  id={`usage-${input.name}`}
                  value={values[key(input.name)] ?? ''}
                  placeholder={input.type.trim() === 'string' ? 'text (quoted for you)' : 'an HCL expression'}
                  onChange={(event) => setValues((previous) => ({ ...previous, [key(input.name)]: event.target.value }))}
                />
              </div>
            ))}
          </div>
        </details>
      )}
      <p className="hint">
        Needs the CLI configuration from <AppLink to={{ page: 'terraform' }}>Connect Terraform</AppLink>.
      </p>
    </div>
  )
}
