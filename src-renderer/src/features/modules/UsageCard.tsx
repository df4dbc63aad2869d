import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { moduleBlock } from '@shared/module-usage'
import { CopyButton } from '../../lib/copy-button'
import { useSession } from '../../lib/session'
import { serverInfoOptions } from '../terraform/api'
import { docsOptions, moduleOptions, partsOf, type ModuleAddress } from './api'
import { newestInstallable } from './newest'
import { AppLink } from '../../lib/link'

/**
 * How to use the module (or the part shown) at a version: a `module` block with its required
 * inputs, which the user can fill in here before copying it (terrareg's usage builder); an input
 * left empty gets an empty value of its type, with the type beside it.
 */
export function UsageCard({ address, version, part }: { address: ModuleAddress; version: string; part: string }) {
  const { client } = useSession()
  const info = useQuery(serverInfoOptions(client))
  const docs = useQuery(docsOptions(client, address, version))
  const module = useQuery(moduleOptions(client, address))
  /** What the user typed, by part and input, so switching parts keeps each part's values. */
  const [values, setValues] = useState<Record<string, string>>({})
  if (!info.data) return null
  const shown = docs.data && partsOf(docs.data).find((candidate) => candidate.path === part)
  const required = shown?.inputs.filter((input) => input.required) ?? []
  const key = (name: string) => `${part}\n${name}`
  // A revoked version is installed by no one new: the usage names the newest version that is not.
  const attributes = module.data?.data.attributes
  const revoked = attributes?.['revoked-versions'].includes(version) ?? false
  const usable = revoked && attributes ? newestInstallable(attributes) : version
  // What is not a module to call: an example (a configuration to run as it is), or a part with no Terraform at all.
  const example = part.startsWith('examples/')
  const empty = shown?.empty === true
  const callable = Boolean(usable) && !example && !empty
  const snippet = moduleBlock(
    { hostname: info.data.registryHostname, namespace: address.namespace, name: address.name, provider: address.provider, version: usable ?? version, part },
    required.map((input) => ({ name: input.name, type: input.type, value: values[key(input.name)] }))
  )
  return (
    <div className="card padded stack-tight">
      <div className="snippet-header">
        <h2>Usage</h2>
        {callable && <CopyButton text={snippet} label="Copy usage" />}
      </div>
      {revoked && (
        <p className="warning" role="note">
          {version} is revoked: Terraform installs it for no one new.{' '}
          {usable ? `The usage names ${usable}, the newest version that is not.` : 'No version of this module can be installed by someone new.'}
        </p>
      )}
      {example && (
        <p role="note">
          <code>{part}</code> is an example: a configuration to run as it is (<code>terraform init</code> and <code>apply</code> in its folder), not a module to
          call. Its README and Dependencies show how it calls the module.
        </p>
      )}
      {empty && !example && (
        <p role="note">
          {part ? <code>{part}</code> : 'The root of this module'} holds no Terraform files: there is nothing to call. Choose one of its submodules under Submodule.
        </p>
      )}
      {/* Lines as Copy copies them: a line too long for the card scrolls sideways (by keyboard too), never broken inside an address or a name. */}
      {callable && (
        <pre className="keep-lines" aria-label="Usage" tabIndex={0}>
          {snippet.trimEnd()}
        </pre>
      )}
      {callable && required.length > 0 && (
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
