import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'
import { findPostgres, NO_POSTGRES } from './tests/helpers/postgres.js'
import SlowFirst from './tests/setup/slow-first.js'

/**
 * Every project reuses a worker's module cache from one test file to the next (`isolate: false`):
 * a fresh one per file made each file import the whole server again, about a second of CPU per file
 * and a third of the run's. The suites keep no state in modules: each starts its own servers over its
 * own data directory and closes them, and a spy on the console is restored in `finally`.
 */
const shared = { environment: 'node' as const, testTimeout: 30_000, hookTimeout: 30_000, isolate: false }
/**
 * The domain suites that take seconds rather than milliseconds: ingest reads real archives through
 * HashiCorp's parser and tree-sitter (5 s quiet, 29 s on a loaded machine), and a bundle's
 * configuration is parsed the same way. They run with the slow suites.
 */
const HEAVY_DOMAIN = ['tests/domain/ingest.test.ts', 'tests/domain/bundle-configuration.test.ts']
/**
 * The fast suites (`npm run test:unit`, under 10 s on two cores): the domain's rules on the memory
 * store, the authorization and jobs tables, the CLI reference. No server, no disk beyond temp files,
 * no network.
 */
const UNIT = ['tests/domain/**/*.test.ts', 'tests/cli/**/*.test.ts', 'tests/boot/**/*.test.ts']
/**
 * The slow suites (`npm run test:slow`): servers killed mid-write, a replica killed while
 * another takes its ingests over (waiting out its lease, on PostgreSQL), fuzzing, sustained load, HCL
 * that stresses the parser, and the heavy domain suites. A minute and a half of the run between them,
 * half of it in one test.
 */
const SLOW = ['tests/store/crash.test.ts', 'tests/store/replica-crash.test.ts', 'tests/security/fuzz-*.test.ts', 'tests/security/load.test.ts', 'tests/security/hcl-stress.test.ts', ...HEAVY_DOMAIN]

/**
 * What runs again on PostgreSQL: what differs by store. The port's own contract, replicas, the API
 * and Terraform's clients (their queries, archives in chunks, leases, the group reads), concurrency,
 * the MCP tools and the OCI face. Not the suites whose PostgreSQL run only repeats the file store's
 * (each the slowest of its kind, and store-blind beyond the port): those that answer without the
 * store (the GUI's files, methods, the graceful close, the signed downloads' fast path, git's
 * cancellation), git publishing (its records and leases are the port's, tested by the contract) and
 * the provider import (a client of the API, whose archives the API suites store in chunks already), and
 * Terraform's view of what an API suite beside it runs on PostgreSQL (the client's wire, which no store
 * changes): installs (registry-protocol), terraform login (terraform-login), private providers
 * (providers), the gate (gate-parity, on every face) and a version's lifecycle (version-lifecycle).
 */
const POSTGRES_ONLY_REPEATS_FILES = [
  'tests/api/gui-serving.test.ts',
  'tests/api/methods.test.ts',
  'tests/api/graceful-close.test.ts',
  'tests/api/signed-downloads-fast-path.test.ts',
  'tests/vcs/**/*.test.ts',
  'tests/terraform/provider-import.test.ts',
  'tests/terraform/install.test.ts',
  'tests/terraform/terraform-login.test.ts',
  'tests/terraform/providers.test.ts',
  'tests/terraform/gate.test.ts',
  'tests/terraform/version-lifecycle.test.ts'
]

/**
 * The unit suites, the slow ones, then two runs of the others: every suite on the file store (the
 * default), and, where PostgreSQL is installed, those above again on PostgreSQL, each test server on
 * a database of its own in a server the run starts (tests/setup/postgres.ts; the slow project starts
 * one of its own for the replica kill test).
 */
const postgres = findPostgres()
if (!postgres && !process.env.HOMEPORT_POSTGRES_REPORTED) {
  process.env.HOMEPORT_POSTGRES_REPORTED = '1'
  console.log(NO_POSTGRES)
}

export default defineConfig({
  test: {
    // A worker per core, not Vitest's one fewer: the suites wait on servers, PostgreSQL, git and
    // terraform about a third of the time, so one worker on a 2-core machine left a core idle.
    maxWorkers: availableParallelism(),
    // The ten slowest files, after Vitest's own summary.
    reporters: ['default', './tests/setup/slowest-files.ts'],
    // The slow suites first, so that their long files are not the run's tail (tests/setup/slow-first.ts).
    sequence: { sequencer: SlowFirst },
    projects: [
      { test: { ...shared, name: 'unit', include: UNIT, exclude: [...configDefaults.exclude, ...HEAVY_DOMAIN] } },
      { test: { ...shared, name: 'slow', include: SLOW, globalSetup: postgres ? ['tests/setup/postgres.ts'] : [] } },
      { test: { ...shared, name: 'files', include: ['tests/**/*.test.ts'], exclude: [...configDefaults.exclude, ...UNIT, ...SLOW] } },
      ...(postgres
        ? [
            {
              test: {
                ...shared,
                name: 'postgres',
                include: ['tests/api/**/*.test.ts', 'tests/terraform/**/*.test.ts', 'tests/security/concurrency.test.ts', 'tests/store/store-port.test.ts', 'tests/store/replicas.test.ts', 'tests/mcp/assistant-tools.test.ts', 'tests/oci/oci-face.test.ts', 'tests/oci/oci-mirrors.test.ts'],
                exclude: [...configDefaults.exclude, ...POSTGRES_ONLY_REPEATS_FILES],
                env: { HOMEPORT_TEST_STORE: 'postgres' },
                globalSetup: ['tests/setup/postgres.ts']
              }
            }
          ]
        : [])
    ]
  }
})
