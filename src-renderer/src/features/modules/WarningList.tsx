/** What ingest warned about a version (a file that did not parse, with its line; no Terraform files), as one list. */
export function WarningList({ warnings }: { warnings: string[] }) {
  return (
    <ul className="warnings" aria-label="Warnings">
      {warnings.map((warning) => (
        <li key={warning}>{warning}</li>
      ))}
    </ul>
  )
}
