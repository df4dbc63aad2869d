import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../lib/session'
import { Loading } from '../../lib/ui'
import { dailyDownloadsOptions, downloadsOptions, type ModuleAddress } from '../../features/modules/api'
import { DownloadsChart } from '../../features/modules/DownloadsChart'

/** A private module's downloads: the last 30 days, and the week's, month's, year's and all-time totals. */
export function DownloadsCard({ address }: { address: ModuleAddress }) {
  const { client } = useSession()
  const summary = useQuery(downloadsOptions(client, address))
  const daily = useQuery(dailyDownloadsOptions(client, address))
  return (
    <div className="card padded">
      <h2>Downloads</h2>
      {summary.data && daily.data ? <DownloadsChart days={daily.data.data.attributes.days} totals={summary.data.data.attributes} /> : <Loading what="downloads" />}
    </div>
  )
}
