import { Fragment } from 'react'

/**
 * A module's description (its README's first paragraph, links and emphasis already reduced to their
 * words by ingest) for a list row: its `code spans` as code rather than backticks. Nothing else is
 * interpreted, and nothing is rendered as HTML.
 */
export function InlineMarkdown({ text }: { text: string }) {
  // Split on code spans: the odd pieces are code.
  const pieces = text.split(/`([^`]+)`/)
  return (
    <>
      {pieces.map((piece, index) => (
        <Fragment key={index}>{index % 2 === 1 ? <code>{piece}</code> : piece}</Fragment>
      ))}
    </>
  )
}
