import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { formatDate } from '../../lib/format'
import { useSession } from '../../lib/session'
import { ConfirmButton, ErrorMessage, Loading } from '../../lib/ui'
import { addGpgKey, deleteGpgKey, gpgKeysOptions, providerKeys } from './api'

/** The GPG keys that sign the organization's provider releases: Terraform checks each release's signature with one. */
export function GpgKeys({ org, canManage }: { org: string; canManage: boolean }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const keys = useQuery(gpgKeysOptions(client, org))
  const [armor, setArmor] = useState('')
  const refresh = () => queryClient.invalidateQueries({ queryKey: providerKeys.keys(org) })
  const add = useMutation({
    mutationFn: () => addGpgKey(client, org, armor),
    onSuccess: async () => {
      setArmor('')
      await refresh()
    }
  })
  const remove = useMutation({ mutationFn: (keyId: string) => deleteGpgKey(client, org, keyId), onSuccess: refresh })
  return (
    <section className="card padded stack" aria-labelledby="gpg-keys">
      <h2 id="gpg-keys">GPG keys</h2>
      <p className="muted">The public keys that sign this organization’s provider releases (SHA256SUMS.sig). Terraform shows a release as signed by one of them.</p>
      {keys.isPending && <Loading what="keys" />}
      {keys.isError && <ErrorMessage error={keys.error} action="Could not list the keys" />}
      {keys.data && keys.data.data.length > 0 && (
        <ul className="plain">
          {keys.data.data.map((key) => (
            <li key={key.id} className="row">
              <code>{key.attributes['key-id']}</code>
              <span className="muted">added {formatDate(key.attributes['created-at'])}</span>
              {canManage && (
                <ConfirmButton label="Remove" subject={`key ${key.attributes['key-id']}`} confirm={`Remove key ${key.attributes['key-id']}?`} onConfirm={() => remove.mutate(key.attributes['key-id'])} busy={remove.isPending} />
              )}
            </li>
          ))}
        </ul>
      )}
      {canManage && (
        <form
          className="stack-tight"
          onSubmit={(event) => {
            event.preventDefault()
            add.mutate()
          }}
        >
          <label htmlFor="gpg-key-armor">Public key (gpg --armor --export &lt;key id&gt;)</label>
          <textarea id="gpg-key-armor" className="key-armor" rows={6} value={armor} onChange={(event) => setArmor(event.target.value)} placeholder="-----BEGIN PGP PUBLIC KEY BLOCK-----" />
          <button type="submit" className="fit" disabled={!armor.trim() || add.isPending}>
            Add key
          </button>
          {add.isError && <ErrorMessage error={add.error} />}
        </form>
      )}
    </section>
  )
}
