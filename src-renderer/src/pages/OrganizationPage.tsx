import { useQuery } from '@tanstack/react-query'
import type { Route } from '../lib/router'
import { useSession } from '../lib/session'
import { LoadFailure } from '../lib/not-found'
import { Loading, Tabs, type Tab } from '../lib/ui'
import { CuratePublicModule } from '../features/modules/CuratePublicModule'
import { ModuleList } from '../features/modules/ModuleList'
import { Publish } from '../features/modules/Publish'
import { VcsPage } from '../features/vcs/VcsPage'
import { organizationOptions } from '../features/organizations/api'
import { OrganizationSettings } from '../features/organizations/OrganizationSettings'
import { CliTokens } from '../features/organizations/CliTokens'
import { OrganizationToken } from '../features/organizations/OrganizationToken'
import { Teams } from '../features/organizations/Teams'
import { GpgKeys } from '../features/providers/GpgKeys'
import { ProvidersPage } from '../features/providers/ProvidersPage'
import { serverInfoOptions } from '../features/terraform/api'
import { AppLink } from '../lib/link'
import { ORG_TAB_LABELS } from '../lib/router'
import { AuditTrail } from '../features/audit/AuditTrail'
import { GatePanel } from '../features/gate/GatePanel'

type OrgTab = Extract<Route, { page: 'organization' }>['tab']

/** One organization: its modules and providers, publishing, teams, VCS connections and settings (GPG keys among them). */
export function OrganizationPage({ org, tab, query }: { org: string; tab: OrgTab; query?: string }) {
  const { client } = useSession()
  const organization = useQuery(organizationOptions(client, org))
  const info = useQuery(serverInfoOptions(client))
  if (organization.isPending) return <Loading what={org} />
  if (organization.isError) {
    return (
      <LoadFailure
        error={organization.error}
        action={`Could not open ${org}`}
        missing={{
          title: 'Organization not found',
          back: { to: { page: 'organizations' }, label: 'Back to the organizations' },
          explanation: `There is no organization ${org} that you may see: it may have been deleted, or the address mistyped.`
        }}
      />
    )
  }
  const permissions = organization.data.data.attributes.permissions
  const canPublish = permissions['can-create-module']
  const shown: OrgTab[] = ['modules', 'providers', ...(canPublish ? (['publish', 'vcs'] as const) : []), 'teams', ...(permissions['can-update'] ? (['audit'] as const) : []), 'gate', 'settings']
  const tabs: Array<Tab<OrgTab>> = shown.map((id) => ({ id, label: ORG_TAB_LABELS[id] }))
  return (
    <div className="stack">
      <header>
        <p className="breadcrumbs">
          <AppLink to={{ page: 'organizations' }}>Organizations</AppLink>
        </p>
        <h1>{org}</h1>
        <p className="muted">{organization.data.data.attributes.email}</p>
      </header>
      <Tabs tabs={tabs} current={tab} linkTo={(id) => ({ page: 'organization', org, tab: id })} />
      {tab === 'modules' && (
        <>
          {permissions['can-manage-public-modules'] && <CuratePublicModule org={org} />}
          <ModuleList org={org} query={query ?? ''} />
        </>
      )}
      {tab === 'providers' && <ProvidersPage org={org} canPublish={canPublish} registryHostname={info.data?.registryHostname ?? 'homeport.localhost'} />}
      {tab === 'publish' && <Publish org={org} />}
      {tab === 'vcs' && <VcsPage org={org} />}
      {tab === 'teams' && (
        <>
          <Teams org={org} canManage={permissions['can-create-team']} />
          {permissions['can-create-team'] && <OrganizationToken org={org} />}
          <CliTokens org={org} />
        </>
      )}
      {tab === 'audit' && <AuditTrail org={org} query={query} />}
      {tab === 'gate' && <GatePanel scope={org} canManage={permissions['can-update']} />}
      {tab === 'settings' && (
        <OrganizationSettings key={org} organization={organization.data.data}>
          <GpgKeys org={org} canManage={canPublish} />
        </OrganizationSettings>
      )}
    </div>
  )
}
