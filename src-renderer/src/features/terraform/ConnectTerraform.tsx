import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { moduleBlock } from '@shared/module-usage'
import { OPENTOFU_INSTALLS, openTofuCliConfig, openTofuConfigProblem, PUBLIC_REGISTRY_HOSTS, terraformCliConfig, type OpenTofuInstall } from '@shared/terraform-config'
import { CopyButton } from '../../lib/copy-button'
import { saveFile } from '../../lib/save-file'
import { useSession } from '../../lib/session'
import { ErrorMessage } from '../../lib/ui'
import { serverInfoOptions } from './api'

/** Which client the configuration is for: Terraform, or OpenTofu installing one of its ways. */
type Tool = 'terraform' | OpenTofuInstall

/** The Terraform CLI configuration and a `module` block to paste, filled in for this Homeport. */
export function ConnectTerraform() {
  const { client } = useSession()
  const info = useQuery(serverInfoOptions(client))
  const [showToken, setShowToken] = useState(false)
  const [airGapped, setAirGapped] = useState(false)
  /** OpenTofu's mirrors online: the public registries' providers through Homeport too (air-gapped implies it). */
  const [mirrorPublic, setMirrorPublic] = useState(false)
  const [tool, setTool] = useState<Tool>('terraform')
  /** A token to put in the file instead of the one signed in with (a team token that only reads, for CI). */
  const [chosenToken, setChosenToken] = useState('')

  if (info.isPending) return <p className="muted">Loading…</p>
  if (info.isError) return <ErrorMessage error={info.error} action="Could not read the server’s settings" />

  const { registryHostname, serverUrl } = info.data
  // Signed in through single sign-on there is no token of the session's: Terraform's file is the one `terraform login` completes, OpenTofu's needs one pasted.
  const token = chosenToken.trim() || client.token || undefined
  const FILE_NAME = tool === 'terraform' ? 'homeport.tfrc' : 'homeport.tofurc'
  const product = tool === 'terraform' ? 'Terraform' : 'OpenTofu'
  const problem =
    tool === 'terraform' ? undefined : token === undefined ? 'OpenTofu’s file needs a token: make one on your account page, and paste it below.' : openTofuConfigProblem({ install: tool, serverUrl })
  const config =
    tool === 'terraform'
      ? terraformCliConfig({ hostname: registryHostname, serverUrl, token, publicHosts: airGapped ? PUBLIC_REGISTRY_HOSTS : [] })
      : problem
        ? ''
        : openTofuCliConfig({ hostname: registryHostname, serverUrl, token: token ?? '', install: tool, airGapped, mirrorPublic })
  const example = moduleBlock({ hostname: registryHostname, namespace: 'ORGANIZATION', name: 'MODULE', provider: 'PROVIDER', version: '~> 1.0' })
  const shown = showToken || !token ? config : config.replaceAll(token, `${token.slice(0, 8)}…`)
  const download = () => saveFile(new Blob([config], { type: 'text/plain' }), FILE_NAME)

  return (
    <section aria-labelledby="connect-heading" className="stack">
      <header>
        <h1 id="connect-heading">Connect Terraform</h1>
        <p className="muted">
          Terraform and OpenTofu find this registry through a <code>host</code> block in their CLI configuration, so module sources read{' '}
          <code>{registryHostname}/&lt;organization&gt;/&lt;module&gt;/&lt;provider&gt;</code> and nothing is looked up in DNS.
        </p>
      </header>

      <fieldset className="card choices">
        <legend>Configure</legend>
        <label className="inline">
          <input type="radio" name="tool" checked={tool === 'terraform'} onChange={() => setTool('terraform')} /> Terraform
        </label>
        {OPENTOFU_INSTALLS.map(({ install, label }) => (
          <label className="inline" key={install}>
            <input type="radio" name="tool" checked={tool === install} onChange={() => setTool(install)} /> OpenTofu: {label}
          </label>
        ))}
      </fieldset>

      <div className="card snippet">
        <div className="snippet-header">
          <h2>1. Save the CLI configuration</h2>
          <div className="actions">
            <label className="inline">
              <input type="checkbox" checked={airGapped} onChange={(event) => setAirGapped(event.target.checked)} /> Air-gapped (public providers and modules from this Homeport)
            </label>
            {tool !== 'terraform' && tool !== 'registry' && !airGapped && (
              <label className="inline">
                <input type="checkbox" checked={mirrorPublic} onChange={(event) => setMirrorPublic(event.target.checked)} /> Public providers through this mirror too
              </label>
            )}
            <label className="inline">
              <input type="checkbox" checked={showToken} onChange={(event) => setShowToken(event.target.checked)} /> Show token
            </label>
            <CopyButton text={config} />
            <button type="button" className="primary" onClick={download} disabled={Boolean(problem)}>
              Download {FILE_NAME}
            </button>
          </div>
        </div>
        {problem ? (
          <p role="alert" className="error">
            {problem}
          </p>
        ) : (
          <pre aria-label={tool === 'terraform' ? 'Terraform CLI configuration' : 'OpenTofu CLI configuration'}>{shown}</pre>
        )}
        <div className="field">
          <label htmlFor="config-token">Token in the file</label>
          <input
            id="config-token"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={chosenToken}
            placeholder={client.token ? 'the token you signed in with' : 'a token from your account page'}
            aria-describedby="config-token-hint"
            onChange={(event) => setChosenToken(event.target.value)}
          />
          <p className="hint" id="config-token-hint">
            Paste a team token that can only read modules (an organization’s Teams page makes one) to use it instead of yours: a CI box or a colleague’s
            laptop needs no more.
          </p>
        </div>
      </div>

      <div className="card snippet">
        <div className="snippet-header">
          <h2>2. Point {product} at it</h2>
          <CopyButton text={`export TF_CLI_CONFIG_FILE="$PWD/${FILE_NAME}"`} />
        </div>
        <pre>{`export TF_CLI_CONFIG_FILE="$PWD/${FILE_NAME}"`}</pre>
        <p className="hint">
          Or copy its blocks into <code>{tool === 'terraform' ? '~/.terraformrc' : '~/.tofurc'}</code>. The command line writes it too, with a token made
          for it that acts as the team you name:{' '}
          <code>
            homeport terraform-config --team &lt;organization&gt;/&lt;team&gt;{tool === 'terraform' ? '' : ` --opentofu --install ${tool}`}
            {airGapped ? ' --air-gapped' : mirrorPublic && tool !== 'terraform' && tool !== 'registry' ? ' --mirror-public' : ''} --output {FILE_NAME}
          </code>
          .
        </p>
      </div>

      {tool === 'terraform' && (
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
      )}

      <div className="card snippet">
        <div className="snippet-header">
          <h2>3. Use a module</h2>
          <CopyButton text={example} />
        </div>
        <pre>{example}</pre>
        <p className="hint">
          Then run <code>{tool === 'terraform' ? 'terraform init' : 'tofu init'}</code>. Each module’s page shows this block filled in.
        </p>
      </div>
    </section>
  )
}
