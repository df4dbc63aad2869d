import { useEffect, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import type { DesktopSettings } from '@shared/bridge'
import { useSession } from '../lib/session'
import { ErrorMessage, Loading } from '../lib/ui'
import { downloadBackup } from '../features/settings/api'
import { accountOptions } from '../features/organizations/api'
import { AuditRetention } from '../features/audit/AuditRetention'
import { ConnectAssistant } from '../features/assistants/ConnectAssistant'
import { applyTheme, storedTheme, THEMES, type Theme } from '../lib/theme'

/**
 * The desktop app's settings: port, data folder, edition, TLS. Saving restarts the embedded
 * server (not the app) and reloads the window from the new address.
 */
export function SettingsPage() {
  const bridge = window.homeport
  const [settings, setSettings] = useState<DesktopSettings>()
  const [error, setError] = useState<Error | null>(null)
  const [saving, setSaving] = useState(false)

  useEffect(() => {
    void bridge?.getSettings().then(setSettings, setError)
  }, [bridge])

  if (!bridge) {
    return (
      <section className="stack">
        <h1>Settings</h1>
        <p className="muted">
          This Homeport runs headless: its settings are the options of <code>homeport serve</code> (<code>--port</code>, <code>--data-dir</code>,{' '}
          <code>--edition</code>, <code>--tls</code>). The desktop app changes them here.
        </p>
        <Appearance />
        <Backups />
        <AuditRetention />
        <ConnectAssistant />
      </section>
    )
  }
  if (!settings) return error ? <ErrorMessage error={error} /> : <Loading what="settings" />

  const save = async () => {
    setSaving(true)
    setError(null)
    try {
      await bridge.saveSettings(settings)
    } catch (caught) {
      setError(caught as Error)
      setSaving(false)
    }
  }

  return (
    <section className="stack" aria-labelledby="settings-heading">
      <h1 id="settings-heading">Settings</h1>
      <form
        className="card form"
        onSubmit={(event) => {
          event.preventDefault()
          void save()
        }}
      >
        <div className="field">
          <label htmlFor="settings-port">Port</label>
          <input
            id="settings-port"
            type="number"
            min={0}
            max={65535}
            value={settings.port}
            onChange={(event) => setSettings({ ...settings, port: Number(event.target.value) })}
          />
          <p className="hint">0 picks any free port. Terraform’s CLI configuration names the port: download it again after a change.</p>
        </div>
        <div className="field">
          <label htmlFor="settings-data">Data folder</label>
          <div className="form-row">
            <input id="settings-data" value={settings.dataDir} readOnly />
            <button
              type="button"
              onClick={() => void bridge.pickFolder().then((folder) => folder && setSettings({ ...settings, dataDir: folder }))}
            >
              Choose…
            </button>
            <button type="button" onClick={() => void bridge.openPath(settings.dataDir)}>
              Show
            </button>
          </div>
        </div>
        <div className="field">
          <label htmlFor="settings-edition">Edition</label>
          <select
            id="settings-edition"
            value={settings.edition}
            onChange={(event) => setSettings({ ...settings, edition: event.target.value as DesktopSettings['edition'] })}
          >
            <option value="hosted">Hosted (HCP Terraform): public module curation</option>
            <option value="self-hosted">Self-hosted (Terraform Enterprise): module sharing, retention policies</option>
          </select>
        </div>
        <label className="inline">
          <input type="checkbox" checked={settings.tls} onChange={(event) => setSettings({ ...settings, tls: event.target.checked })} /> Serve HTTPS, with
          a certificate from Homeport’s own CA (trust <code>tls/ca.crt</code> in the data folder)
        </label>
        <ErrorMessage error={error} action="Not applied" />
        <div className="actions">
          <button type="submit" className="primary" disabled={saving}>
            {saving ? 'Restarting the server…' : 'Save and restart the server'}
          </button>
        </div>
      </form>
      <Appearance />
      <Backups />
      <AuditRetention />
      <ConnectAssistant />
    </section>
  )
}

/** Light, dark, or as the system says: for this browser or desktop app, applied at once. */
function Appearance() {
  const [theme, setTheme] = useState<Theme>(storedTheme)
  return (
    <div className="card padded stack-tight">
      <h2 id="appearance-heading">Appearance</h2>
      <fieldset className="actions start" aria-labelledby="appearance-heading">
        {THEMES.map((option) => (
          <label key={option.theme} className="inline">
            <input
              type="radio"
              name="theme"
              value={option.theme}
              checked={theme === option.theme}
              onChange={() => {
                applyTheme(option.theme)
                setTheme(option.theme)
              }}
            />{' '}
            {option.label}
          </label>
        ))}
      </fieldset>
    </div>
  )
}

/** Download a backup (taken while the server runs); in the desktop app, restore one. The site admin's only: shown to no one else. */
function Backups() {
  const { client } = useSession()
  const siteAdmin = useQuery(accountOptions(client)).data?.data.attributes['is-site-admin'] === true
  const [error, setError] = useState<Error | null>(null)
  const [busy, setBusy] = useState(false)
  const [restored, setRestored] = useState<string | null>()
  const download = async () => {
    setBusy(true)
    setError(null)
    try {
      await downloadBackup(client)
    } catch (caught) {
      setError(caught as Error)
    } finally {
      setBusy(false)
    }
  }
  const restore = async () => {
    setError(null)
    try {
      const result = await window.homeport!.restoreBackup()
      if (result) setRestored(result.kept)
    } catch (caught) {
      setError(caught as Error)
    }
  }
  if (!siteAdmin) return null
  return (
    <div className="card padded stack-tight">
      <h2>Backups</h2>
      <p className="muted">
        A backup holds every organization, team, module, version and archive, taken consistently while Homeport runs. From a terminal:{' '}
        <code>homeport backup &lt;file&gt;</code>.
      </p>
      <div className="actions start">
        <button type="button" onClick={() => void download()} disabled={busy}>
          {busy ? 'Preparing…' : 'Download a backup'}
        </button>
        {window.homeport && (
          <button type="button" className="danger-outline" onClick={() => void restore()}>
            Restore a backup…
          </button>
        )}
      </div>
      {!window.homeport && (
        <p className="hint">
          To restore, stop the server and run <code>homeport restore &lt;file&gt;</code>: it checks the backup first, and keeps the data it replaces.
        </p>
      )}
      {restored !== undefined && <p role="status">Restored.{restored ? ` The previous data is kept in ${restored}.` : ''}</p>}
      <ErrorMessage error={error} />
    </div>
  )
}
