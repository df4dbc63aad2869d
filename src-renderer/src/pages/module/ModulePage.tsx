import { useEffect, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { AppLink } from '../../lib/link'
import { MODULE_SEARCH, navigate, queryOf, replaceAddress } from '../../lib/router'
import { useSession } from '../../lib/session'
import { useMediaQuery } from '../../lib/media-query'
import { LoadFailure } from '../../lib/not-found'
import { ConfirmButton, ErrorMessage, Loading } from '../../lib/ui'
import { moduleOptions, modulePath, useDeleteAt, type ModuleAddress } from '../../features/modules/api'
import { newest } from '../../features/modules/newest'
import { UsageCard } from '../../features/modules/UsageCard'
import { VersionLifecycle } from '../../features/modules/VersionLifecycle'
import { Documentation } from './Documentation'
import { ModuleHeader } from './ModuleHeader'
import { DownloadsCard } from './DownloadsCard'
import { GateCard } from './GateCard'
import { MirrorPublicVersion } from './MirrorPublicVersion'
import { SECTIONS, type Section } from './sections'
import { VcsCard } from './VcsCard'
import { Versions } from './Versions'

/** Where the module page's right column goes below its documentation (the width in styles.css's `.module-layout` rule). */
const NARROW = '(max-width: 960px)'

/** One module: its documentation at a version, its versions and their statuses, how to use it. */
export function ModulePage({ address, version, query }: { address: ModuleAddress; version?: string; query: string }) {
  const { client } = useSession()
  const module = useQuery(moduleOptions(client, address))
  const remove = useDeleteAt(client, address.org)
  const initial = new URLSearchParams(query)
  /** The part of the module shown ("" for the root), which the usage snippet follows. */
  const [part, setPart] = useState(initial.get('part') ?? '')
  const [section, setSection] = useState<Section>(SECTIONS.find((candidate) => candidate.id === initial.get('tab'))?.id ?? 'readme')
  /** The version the Changes tab compares the one shown with ("": the one before it). */
  const [from, setFrom] = useState(initial.get('from') ?? '')
  /** The file the Files tab shows ("": the part's main file). */
  const [file, setFile] = useState(initial.get('file') ?? '')
  useEffect(() => {
    // The part, tab, compared version and file live in the address (replaced, not pushed), so each view of the module is a link to share.
    const query = queryOf({ part, tab: section === 'readme' ? '' : section, from: section === 'changes' ? from : '', file: section === 'files' ? file : '' }, MODULE_SEARCH)
    replaceAddress({ page: 'module', ...address, version, query })
  }, [address, version, part, section, from, file])

  // On a narrow screen the right column goes below the documentation: the usage then comes first in the main column, and in the page's order there.
  const narrow = useMediaQuery(NARROW)
  if (module.isPending) return <Loading what="the module" />
  if (module.isError) {
    const label = `${address.namespace}/${address.name}/${address.provider}`
    return (
      <LoadFailure
        error={module.error}
        action="Could not load the module"
        missing={{
          title: 'Module not found',
          back: { to: { page: 'organization', org: address.org, tab: 'modules' }, label: `Back to ${address.org}’s modules` },
          explanation: `${address.org} has no ${address.registry} module ${label} that you may see: it may have been deleted, or the address mistyped.`
        }}
      />
    )
  }
  const attributes = module.data.data.attributes
  const published = attributes['version-statuses'].filter((entry) => entry.status === 'ok').map((entry) => entry.version)
  // A link to a version that is not published (deleted, failed, mistyped) says so, rather than offering its usage.
  const missing = version !== undefined && !published.includes(version) ? version : undefined
  const selected = missing ? undefined : (version ?? newest(published))
  const label = `${attributes.namespace}/${attributes.name}/${attributes.provider}`
  const usage = selected && attributes['registry-name'] === 'private' && <UsageCard address={address} version={selected} part={part} />

  return (
    <article className="stack" aria-labelledby="module-heading">
      <ModuleHeader address={address} attributes={attributes} version={selected} />

      <div className="module-layout">
        <div className="stack">
          {narrow && usage}
          {selected ? (
            <>
              <Documentation
                address={address}
                version={selected}
                attributes={attributes}
                part={part}
                setPart={setPart}
                section={section}
                setSection={setSection}
                from={from}
                setFrom={setFrom}
                file={file}
                setFile={setFile}
              />
            </>
          ) : (
            missing ? (
              <div className="card padded" role="status">
                <h2>Version {missing} is not published</h2>
                <p className="muted">
                  {attributes['version-statuses'].some((entry) => entry.version === missing)
                    ? 'It has not been published (see its status in the list of versions).'
                    : 'This module has no such version: it was deleted, or never was.'}{' '}
                  {newest(published) && <AppLink to={{ page: 'module', ...address, version: newest(published) }}>See {newest(published)}, the latest.</AppLink>}
                </p>
              </div>
            ) : attributes['registry-name'] === 'public' ? (
              <MirrorPublicVersion address={address} />
            ) : (
              <div className="card padded">
                <h2>No published version yet</h2>
                <p className="muted">
                  {attributes['version-statuses'].length === 0
                    ? 'Publish a version to see its documentation here.'
                    : 'Its versions are still being published, or failed: see their statuses.'}
                </p>
              </div>
            )
          )}
        </div>
        {/* After the documentation in the page's order as on screen (the right column, or below it on a narrow screen), so Tab follows what one sees. */}
        <aside className="stack" aria-label="About this module">
          {!narrow && usage}
          {selected && attributes['registry-name'] === 'private' && <VersionLifecycle address={address} version={selected} />}
          {attributes['registry-name'] === 'private' && <DownloadsCard address={address} />}
          {attributes['vcs-repo'] && <VcsCard address={address} attributes={attributes} />}
          {attributes['registry-name'] === 'public' && <GateCard address={address} mirrored={published} />}
          <Versions address={address} attributes={attributes} selected={selected} />
          {/* Last: deleting is never among the first things a keyboard reaches. */}
          {attributes.permissions['can-delete'] && (
            <section className="card padded stack-tight" aria-labelledby="delete-module">
              <h2 id="delete-module">{attributes['registry-name'] === 'public' ? 'Stop curating' : 'Delete'}</h2>
              <p className="muted">
                {attributes['registry-name'] === 'public'
                  ? 'Removes this public module from the organization’s registry, with the versions mirrored here.'
                  : `Deletes ${label} with every version; configurations that call it can no longer install it.`}
              </p>
              <div>
                <ConfirmButton
                  label={attributes['registry-name'] === 'public' ? `Stop curating ${label}` : `Delete ${label}`}
                  confirm={attributes['registry-name'] === 'public' ? `Stop curating ${label}?` : `Delete ${label} and all its versions?`}
                  busy={remove.isPending}
                  onConfirm={() =>
                    // The promise, not an onSuccess callback: this page unmounts when the module's refetch finds it gone.
                    void remove
                      .mutateAsync(attributes['registry-name'] === 'public' ? modulePath(address).replace(/\/[^/]+$/, '') : modulePath(address))
                      .then(() => navigate({ page: 'organization', org: address.org, tab: 'modules' }), () => undefined)
                  }
                />
              </div>
              <ErrorMessage error={remove.error} action="Could not delete" />
            </section>
          )}
        </aside>
      </div>
    </article>
  )
}
