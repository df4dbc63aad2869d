import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../lib/session'
import { accountOptions } from '../organizations/api'
import { GatePanel } from './GatePanel'

/** The installation's gate over what comes in from the public registries: the site admin sets it, everyone reads why. */
export function GatePage() {
  const { client } = useSession()
  const siteAdmin = useQuery(accountOptions(client)).data?.data.attributes['is-site-admin'] === true
  return (
    <div className="stack">
      <header>
        <h1>Gate</h1>
        <p className="muted">
          What comes in from registry.terraform.io and registry.opentofu.org: new versions wait out a cooldown, block and allow lists keep addresses out, and owners can approve each version. Every face decides the same way: Terraform,
          OpenTofu, the network mirror, OCI, assistants and bundles. Each organization can add its own on top, in its Gate tab. {siteAdmin ? '' : 'The site admin sets this one.'}
        </p>
      </header>
      <GatePanel scope={undefined} canManage={siteAdmin} />
    </div>
  )
}
