const PERIODS = [
  ['week', 'Last 7 days'],
  ['month', 'Last 30 days'],
  ['year', 'Last 365 days'],
  ['total', 'All time']
] as const

type Counts = Record<(typeof PERIODS)[number][0], number>

/** Download counts as bars scaled to the all-time total, each with its number. */
export function DownloadsChart({ counts }: { counts: Counts }) {
  const max = Math.max(1, counts.total)
  return (
    <figure className="chart" aria-label="Downloads">
      {PERIODS.map(([key, label]) => (
        <div key={key} className="chart-row">
          <span className="chart-label">{label}</span>
          <span className="chart-track" aria-hidden="true">
            <span className="chart-bar" style={{ width: `${Math.max(1.5, (counts[key] / max) * 100)}%` }} />
          </span>
          <span className="chart-value">{counts[key].toLocaleString()}</span>
        </div>
      ))}
    </figure>
  )
}
