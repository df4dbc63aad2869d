import { useQuery } from '@tanstack/react-query'
import { formatBytes } from '../../lib/format'
import { FolderDrop } from '../../lib/folder-drop'
import { PROVIDER_PATTERN, patternProps } from '../../lib/name-pattern'
import { useSession } from '../../lib/session'
import { ErrorMessage } from '../../lib/ui'
import { organizationOptions } from '../organizations/api'
import { InterfacePreview } from './publish/InterfacePreview'
import { PublishProgress } from './publish/PublishProgress'
import { SelectionSummary } from './publish/SelectionSummary'
import { usePublish } from './publish/usePublish'
import { VersionHint } from './publish/VersionHint'

/**
 * Publishing without VCS, as a person does it: pick a module folder (or drop it, or an existing
 * .tar.gz), see what goes in, choose the version, and watch it through packaging, upload and
 * ingest until it is published or fails with the reason (usePublish holds the steps).
 */
export function Publish({ org }: { org: string }) {
  const { client } = useSession()
  const publish = usePublish(org)
  const { selection, archive, name, provider, version, stage, address, underway, ready } = publish
  const organization = useQuery(organizationOptions(client, org))
  // Said before a folder is picked, not at upload time: this token reads the organization's modules but may not publish.
  const mayPublish = organization.data?.data.attributes.permissions['can-create-module'] !== false

  return (
    <section className="stack" aria-labelledby="publish-heading">
      <header>
        <h2 id="publish-heading">Publish a module folder</h2>
        <p className="muted">
          The folder’s files go in with the module at the archive’s root, except <code>.git/</code>, <code>.terraform/</code> and whatever its{' '}
          <code>.terraformignore</code> leaves out.
        </p>
      </header>

      {!mayPublish && (
        <p role="note" className="warnings">
          The token you signed in with reads {org}’s modules but may not publish them. Publishing needs a team with Manage modules (or the owners team):
          an owner gives it on the organization’s Teams page, or sign in with such a team’s token.
        </p>
      )}

      {mayPublish && (
        <FolderDrop prompt="Drop a module folder here, or" label="Module folder" button="Choose a folder…" primary className="card" onFiles={publish.chooseFolder}>
          <label className="button">
            Choose a .tar.gz…
            <input
              type="file"
              className="visually-hidden"
              aria-label="Module archive"
              accept=".tar.gz,.tgz,application/gzip"
              onChange={(event) => {
                const file = event.target.files?.[0]
                if (file) publish.chooseArchive(file)
              }}
            />
          </label>
        </FolderDrop>
      )}

      {selection && !underway && <SelectionSummary selection={selection} />}
      {archive && !underway && (
        <div className="card padded">
          <h3>
            {archive.name}, {formatBytes(archive.size)}
          </h3>
        </div>
      )}

      {underway && <PublishProgress stage={stage} onAnother={publish.another} />}

      {(selection || archive) && !underway && (
        <form
          className="card form"
          aria-label="Version to publish"
          onSubmit={(event) => {
            event.preventDefault()
            void publish.publish()
          }}
        >
          <div className="form-row">
            <div className="field">
              <label htmlFor="publish-name">Module name</label>
              <input id="publish-name" value={name} required onChange={(event) => publish.setName(event.target.value)} />
            </div>
            <div className="field">
              <label htmlFor="publish-provider">Provider</label>
              <input
                id="publish-provider"
                value={provider}
                required
                {...patternProps(PROVIDER_PATTERN, 'a module’s provider is lower-case letters and digits only (aws, azurerm, google).')}
                onChange={(event) => publish.setProvider(event.target.value)}
              />
            </div>
            <div className="field">
              <label htmlFor="publish-version">Version</label>
              <input id="publish-version" value={version} required onChange={(event) => publish.pickVersion(event.target.value)} />
              <VersionHint address={address} version={version} onPick={publish.pickVersion} proposing={!publish.versionChosen} />
            </div>
          </div>
          <InterfacePreview
            key={`${selection?.folder ?? archive?.name}/${name}/${provider}`}
            address={address}
            version={version}
            enabled={ready}
            archive={publish.packed}
            onPick={publish.pickVersion}
          />
          <div className="actions">
            <button type="submit" className="primary" disabled={!ready}>
              Publish {name && provider ? `${org}/${name}/${provider} ${version}` : ''}
            </button>
          </div>
        </form>
      )}

      {stage.step === 'failed' && <ErrorMessage error={new Error(stage.message)} action="Publishing failed" />}
    </section>
  )
}
