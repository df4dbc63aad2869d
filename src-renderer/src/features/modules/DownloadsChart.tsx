import { formatDate } from '../../lib/format'
import type { DailyDownloadsAttributes, DownloadsSummaryAttributes } from '@shared/wire/modules'

/**
 * Downloads per day over the last 30 days, as bars scaled to the busiest day, with the totals in
 * words beside them (cumulative bars of week, month and year were always nearly equal). The numbers
 * are also a table for screen readers.
 */
export function DownloadsChart({ days, totals }: { days: DailyDownloadsAttributes['days']; totals: DownloadsSummaryAttributes }) {
  const busiest = Math.max(1, ...days.map((day) => day.count))
  return (
    <figure className="chart" aria-label="Downloads per day, the last 30 days">
      <div className="day-bars" aria-hidden="true">
        {days.map((day) => (
          <span key={day.date} className="day-bar" title={`${formatDate(day.date)}: ${day.count}`} style={{ height: `${day.count === 0 ? 2 : Math.max(6, (day.count / busiest) * 100)}%` }} />
        ))}
      </div>
      <figcaption className="muted">
        7 days {totals.week.toLocaleString()} · 30 days {totals.month.toLocaleString()} · a year {totals.year.toLocaleString()} · all time {totals.total.toLocaleString()}
      </figcaption>
      {/* Hidden by its wrapper: a table grows to its rows whatever height it is given, and a hidden table 30 rows tall made the page scroll into blank space. */}
      <div className="visually-hidden">
        <table>
          <caption>Downloads per day</caption>
          <tbody>
            {days.map((day) => (
              <tr key={day.date}>
                <th scope="row">{day.date}</th>
                <td>{day.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  )
}
