import type { TestProject } from 'vitest/node'
import { findPostgres, NO_POSTGRES, startPostgres } from '../helpers/postgres.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test run's PostgreSQL server (`postgres://homeport@127.0.0.1:<port>`), empty when there is none. */
    postgresUrl: string
  }
}

/** Starts a PostgreSQL server for a project that uses one (`postgres`, `slow`), and stops it at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const bin = findPostgres()
  if (!bin) {
    console.log(NO_POSTGRES)
    project.provide('postgresUrl', '')
    return () => Promise.resolve()
  }
  const server = await startPostgres(bin)
  console.log(
    project.name === 'postgres'
      ? `The store and API suites run on PostgreSQL too (${bin}, on ${server.url}).`
      : `The ${project.name} project's PostgreSQL: ${server.url}.`
  )
  project.provide('postgresUrl', server.url)
  return () => server.stop()
}
