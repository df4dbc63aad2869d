import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { moduleBlock } from '@shared/module-usage'
import { PUBLIC_REGISTRY_HOSTS, terraformCliConfig } from '@shared/terraform-config'
import { CopyButton } from '../../lib/copy-button'
import { saveFile } from '../../lib/save-file'
import { useSession } from '../../lib/session'
import { ErrorMessage } from '../../lib/ui'
import { serverInfoOptions } from './api'

const FILE_NAME = 'homeport.tfrc'

/** The Terraform CLI configuration and a `module` block to paste, filled in for this Homeport. */
export function ConnectTerraform() {
  const { client } = useSession()
  const info = useQuery(serverInfoOptions(client))
  const [showToken, setShowToken] = useState(false)
  const [airGapped, setAirGapped] = useState(false)

  if (info.isPending) return <p className="muted">Loading…</p>
  if (info.isError) return <ErrorMessage error={info.error} action="Could not read the server’s settings" />

  const { registryHostname, serverUrl } = info.data
  const config = terraformCliConfig({ hostname: registryHostname, serverUrl, token: client.token, publicHosts: airGapped ? PUBLIC_REGISTRY_HOSTS : [] })
  const example = moduleBlock({ hostname: registryHostname, namespace: 'ORGANIZATION', name: 'MODULE', provider: 'PROVIDER', version: '~> 1.0' })
  const shown = showToken ? config : config.replaceAll(client.token, `${client.token.slice(0, 8)}…`)
  const download = () => saveFile(new Blob([config], { type: 'text/plain' }), FILE_NAME)

  return (
    <section aria-labelledby="connect-heading" className="stack">
      <header>
        <h1 id="connect-heading">Connect Terraform</h1>
        <p className="muted">
          Terraform finds this registry through a <code>host</code> block in its CLI configuration, so module sources read{' '}
          <code>{registryHostname}/&lt;organization&gt;/&lt;module&gt;/&lt;provider&gt;</code> and nothing is looked up in DNS.
        </p>
      </header>

      <div className="card snippet">
        <div className="snippet-header">
          <h2>1. Save the CLI configuration</h2>
          <div className="actions">
            <label className="inline">
              <input type="checkbox" checked={airGapped} onChange={(event) => setAirGapped(event.target.checked)} /> Air-gapped (public providers and modules from this Homeport)
            </label>
            <label className="inline">
              <input type="checkbox" checked={showToken} onChange={(event) => setShowToken(event.target.checked)} /> Show token
            </label>
            <CopyButton text={config} />
            <button type="button" className="primary" onClick={download}>
              Download {FILE_NAME}
            </button>
          </div>
        </div>
        <pre aria-label="Terraform CLI configuration">{shown}</pre>
        <p className="hint">It holds the token you signed in with. For CI, prefer a team token that can only read modules.</p>
      </div>

      <div className="card snippet">
        <div className="snippet-header">
          <h2>2. Point Terraform at it</h2>
          <CopyButton text={`export TF_CLI_CONFIG_FILE="$PWD/${FILE_NAME}"`} />
        </div>
        <pre>{`export TF_CLI_CONFIG_FILE="$PWD/${FILE_NAME}"`}</pre>
        <p className="hint">
          Or copy both blocks into <code>~/.terraformrc</code>. The same file comes from the command line:{' '}
          <code>homeport terraform-config --output {FILE_NAME}</code>.
        </p>
      </div>

      <div className="card snippet" aria-labelledby="login-heading">
        <div className="snippet-header">
          <h2 id="login-heading">Or sign in with terraform login</h2>
          <CopyButton text={`homeport terraform-config --login --url ${serverUrl}\nterraform login ${registryHostname}`} />
        </div>
        <pre>{`homeport terraform-config --login --url ${serverUrl}\nterraform login ${registryHostname}`}</pre>
        <p className="hint">
          The first writes the host block, without a token, to <code>~/.terraform.d/homeport.tfrc</code> (where Terraform reads it; leave{' '}
          <code>TF_CLI_CONFIG_FILE</code> unset, or the token login saves is never used). The second opens this GUI to approve a token for the team you
          choose; it is listed, and revocable, under the organization’s Teams.
        </p>
      </div>

      <div className="card snippet">
        <div className="snippet-header">
          <h2>3. Use a module</h2>
          <CopyButton text={example} />
        </div>
        <pre>{example}</pre>
        <p className="hint">
          Then run <code>terraform init</code>. Each module’s page shows this block filled in.
        </p>
      </div>
    </section>
  )
}
