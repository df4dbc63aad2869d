#!/usr/bin/env node
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startServer } from './boot/start-server.js'
import { isLoopback, parseServeOptions, parseTerraformConfigOptions, settingsUsage, UsageError } from './boot/options.js'
import { readAdminTokenFile } from './data-dir/admin-token.js'
import { makeFolder, writeInside } from './files/folder-writes.js'
import { PUBLIC_REGISTRY_HOSTS, terraformCliConfig } from '../shared/terraform-config.js'
import { parseArgs } from 'node:util'
import { backupToFile } from './commands/backup.js'
import { defaultDataDir } from './data-dir/default-dir.js'
import { restoreBackup } from './store/file/restore.js'
import { bodyOf, runningServer } from './commands/lib/running-server.js'
import { importProviderFolder } from './commands/import-providers.js'
import { bundleCommand, importCommand } from './commands/bundle.js'
import { openFileStore } from './store/file/file-store.js'
import { migrateStore } from './store/migrate.js'
import { openPostgresStore } from './store/postgres/pg-store.js'
import type { Store } from './store/port.js'

const USAGE = `Usage: homeport [serve] [options]
       homeport terraform-config [--output <file>] [--url <url>] [--hostname <name>] [--token <token> | --login] [--data-dir <path>] [--air-gapped]
       homeport backup <file> [--data-dir <path>] [--token <admin token>]
       homeport restore <file> [--data-dir <path>] [--accept-unverified]
       homeport mirror-provider <namespace/type> --platform <os_arch>... [--versions <constraint>] [--data-dir <path>] [--token <admin token>]
       homeport import-providers <folder> [--namespace <namespace> --key <file.asc> [--hostname <host>]] [--data-dir <path>] [--token <admin token>]
       homeport bundle [<configuration folder>] --platform <os_arch>... --output <file.hpbundle> [--organization <name>] [--module <source>[@<constraint>]]... [--provider <source>[@<constraint>]]... [--data-dir <path>] [--token <token>]
       homeport import <file.hpbundle> [--organization <name>] [--data-dir <path>] [--token <admin token>]
       homeport migrate --from <data dir | postgres://…> --to <data dir | postgres://…>

serve: runs the Homeport registry headless: the API, the registry protocol and the GUI.
terraform-config: writes the Terraform CLI configuration that points a registry hostname at
  Homeport (use it with TF_CLI_CONFIG_FILE, or copy it into ~/.terraformrc). With --login, it holds no
  token and goes to ~/.terraform.d/homeport.tfrc, for terraform login <hostname> to complete.
backup: a consistent snapshot of the data directory, taken from the running server if there is one.
mirror-provider: has the running Homeport mirror a public provider's versions and platforms from its upstream,
  so that terraform init finds them offline (hashicorp/aws --versions "~> 5.0" --platform linux_amd64).
import-providers: imports into the running Homeport's mirror a folder written by terraform providers mirror,
  each zip checked against the hashes the folder lists: Terraform installs them through the network mirror
  (or the registry protocol too, where upstream's signed SHA256SUMS, mirrored already, lists the same zip).
  Or a provider's release folder (goreleaser's dist/, or the files of releases.hashicorp.com), with
  --namespace (whose provider: hashicorp) and --key (the public key that signed SHA256SUMS): the signature
  and each zip are checked, and Terraform installs them through the registry protocol and the network mirror
  under --hostname (registry.terraform.io unless told).
bundle: has the running Homeport gather everything a Terraform configuration needs (every module call, through
  the modules it calls, and every provider, for each --platform; .terraform.lock.hcl honoured), pulling through
  its upstreams while online, into one file for another Homeport. Modules and providers can be named outright too
  (--module terraform-aws-modules/vpc/aws@"~> 5.0", --provider hashicorp/aws@"~> 5.0"). Nothing is written when
  anything cannot be had: what and why are listed.
import: checks a bundle whole (every file's SHA-256, every provider's signature) and then adds what is missing to
  the Homeport running on the data directory, or to the data directory itself when none runs.
migrate: copies a whole registry between stores (a data directory and a PostgreSQL database, either way), checked
  before and after; the target must be empty, and no Homeport may run on either meanwhile.
restore: checks a backup, then puts it in place of the data directory (kept beside it); stop Homeport first.
         A backup this installation did not make (or that changed) restores only with --accept-unverified.

Options of serve (each also an environment variable; a flag wins over its variable):
${settingsUsage()}
`

async function serve(args: string[]): Promise<void> {
  const options = parseServeOptions(args)
  // The built GUI sits beside this file's folder: out/main/cli.js → out/renderer.
  const rendererDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'renderer')
  const server = await startServer({ ...options, rendererDir })
  const { source } = server.adminToken
  console.log(`Data directory: ${options.dataDir}`)
  console.log(
    source.kind === 'environment'
      ? 'Admin token: from HOMEPORT_ADMIN_TOKEN'
      : `Admin token: in ${source.path}${source.created ? ' (new)' : ''}`
  )
  if (server.tls) {
    console.log(`TLS: clients must trust ${server.tls.trustPath} (for Terraform on Linux: SSL_CERT_FILE=${server.tls.trustPath})`)
    if (server.tls.newCa && server.tls.generated) {
      console.log('TLS: this is a new CA (the first, or one for new host names): trust it again, and remove an older Homeport CA from your trust store.')
    }
  }
  if (server.writesRefused) console.warn(`WARNING: started read-only. ${server.writesRefused}`)
  if (!isLoopback(options.host)) {
    console.warn(
      `WARNING: listening on ${options.host}: other machines on the network can reach this registry. ` +
        'Anyone with a token can publish; protect the tokens, or use --host 127.0.0.1.'
    )
  }
  console.log(`Homeport listening on ${server.url}`)

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    console.log(`${signal}: finishing requests in flight…`)
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`homeport: could not stop cleanly: ${(error as Error).message}`)
        process.exit(1)
      }
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}

async function writeTerraformConfig(args: string[]): Promise<void> {
  const options = parseTerraformConfigOptions(args)
  const publicHosts = options.airGapped ? PUBLIC_REGISTRY_HOSTS : []
  if (options.login) return writeLoginConfig(options.output ?? join(homedir(), '.terraform.d', 'homeport.tfrc'), options.hostname, terraformCliConfig({ hostname: options.hostname, serverUrl: options.url, publicHosts }))
  const token = options.token ?? process.env.HOMEPORT_ADMIN_TOKEN ?? (await readAdminTokenFile(options.dataDir))
  if (!token) {
    throw new UsageError(`No token: pass --token (a team token is best), use --login to sign in with terraform login, or start Homeport once so ${options.dataDir} has its admin token.`)
  }
  const text = terraformCliConfig({ hostname: options.hostname, serverUrl: options.url, token, publicHosts })
  if (!options.output) {
    process.stdout.write(text)
    return
  }
  await writeInside(dirname(resolve(options.output)), options.output, text, { atomic: true })
  console.log(`Wrote ${options.output}. Use it with:\n  export TF_CLI_CONFIG_FILE=${options.output}`)
  console.log(`Module sources then read: ${options.hostname}/<organization>/<module>/<provider>`)
}

/**
 * The configuration for `terraform login`, where Terraform reads it without TF_CLI_CONFIG_FILE (with it
 * set, the token login saves is never read again), in a ~/.terraform.d it creates (Terraform does not,
 * and then fails to save the token).
 */
async function writeLoginConfig(output: string, hostname: string, text: string): Promise<void> {
  await makeFolder(dirname(resolve(output)), undefined, 0o700)
  await writeInside(dirname(resolve(output)), output, text, { atomic: true })
  console.log(`Wrote ${output}.`)
  if (process.env.TF_CLI_CONFIG_FILE) console.log(`TF_CLI_CONFIG_FILE is set (${process.env.TF_CLI_CONFIG_FILE}): unset it, or Terraform will not use the token login saves.`)
  console.log(`Now run:\n  terraform login ${hostname}\nand approve "Terraform CLI on this machine" in the page it opens.`)
}

async function backupOrRestore(command: 'backup' | 'restore', args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, token: { type: 'string' }, 'accept-unverified': { type: 'boolean' } },
    allowPositionals: true,
    strict: true
  })
  const [file] = positionals
  if (!file || positionals.length > 1) throw new UsageError(`homeport ${command} takes one file.`)
  const dataDir = values['data-dir'] ?? process.env.HOMEPORT_DATA_DIR ?? defaultDataDir()
  if (command === 'backup') {
    const from = await backupToFile(dataDir, file, values.token)
    console.log(`Backed up ${dataDir} to ${file}${from === 'server' ? ' (from the running server)' : ''}.`)
    return
  }
  const { kept, provenance } = await restoreBackup(file, dataDir, { acceptUnverified: values['accept-unverified'] === true })
  console.log(`Restored ${file} into ${dataDir}.${kept ? ` The previous data is kept in ${kept}.` : ''}`)
  console.log(
    provenance === 'signed'
      ? 'The backup was made by this installation and has not changed since.'
      : 'The backup is intact, but this installation did not make it: you vouched for where it came from. Replace team tokens you did not create.'
  )
}

async function mirrorProvider(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, token: { type: 'string' }, versions: { type: 'string' }, platform: { type: 'string', multiple: true } },
    allowPositionals: true,
    strict: true
  })
  const [source] = positionals
  if (!source || positionals.length > 1) throw new UsageError('homeport mirror-provider takes one provider, like hashicorp/aws.')
  if (!values.platform?.length) throw new UsageError('Name at least one --platform (linux_amd64, darwin_arm64…).')
  const dataDir = values['data-dir'] ?? process.env.HOMEPORT_DATA_DIR ?? defaultDataDir()
  const running = await runningServer(dataDir, values.token)
  if (!running) throw new Error(`No Homeport is running on ${dataDir}: start it (homeport serve), online, then mirror.`)
  const response = await running.request('POST', '/api/v2/admin/provider-mirror', {
    data: { type: 'provider-mirrors', attributes: { source, platforms: values.platform, ...(values.versions ? { versions: values.versions } : {}) } }
  })
  const document = JSON.parse(await bodyOf(response)) as { data?: { attributes: { mirrored: Array<{ version: string; platform: string }> } }; errors?: Array<{ detail?: string }> }
  if (response.statusCode !== 201) throw new Error(document.errors?.[0]?.detail ?? `Homeport refused (HTTP ${response.statusCode}).`)
  for (const entry of document.data!.attributes.mirrored) console.log(`Mirrored ${source} ${entry.version} for ${entry.platform}.`)
}

async function importProviders(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, token: { type: 'string' }, namespace: { type: 'string' }, key: { type: 'string' }, hostname: { type: 'string' } },
    allowPositionals: true,
    strict: true
  })
  const [folder] = positionals
  if (!folder || positionals.length > 1) throw new UsageError('homeport import-providers takes one folder: written by terraform providers mirror, or a provider release folder.')
  const dataDir = values['data-dir'] ?? process.env.HOMEPORT_DATA_DIR ?? defaultDataDir()
  const running = await runningServer(dataDir, values.token)
  if (!running) throw new Error(`No Homeport is running on ${dataDir}: start it (homeport serve), then import.`)
  await importProviderFolder(running, folder, { hostname: values.hostname, namespace: values.namespace, key: values.key })
}

async function bundle(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      'data-dir': { type: 'string' },
      token: { type: 'string' },
      organization: { type: 'string' },
      output: { type: 'string', short: 'o' },
      platform: { type: 'string', multiple: true },
      module: { type: 'string', multiple: true },
      provider: { type: 'string', multiple: true }
    },
    allowPositionals: true,
    strict: true
  })
  if (positionals.length > 1) throw new UsageError('homeport bundle takes one configuration folder.')
  const [folder] = positionals
  if (!folder && !values.module?.length && !values.provider?.length) throw new UsageError('Give the configuration folder to bundle (where you run terraform init), or --module and --provider.')
  if (!values.output) throw new UsageError('Name the bundle to write with --output (demo.hpbundle).')
  if (!values.platform?.length && (folder || values.provider?.length)) throw new UsageError('Name at least one --platform the providers are for (linux_amd64, darwin_arm64…).')
  const dataDir = values['data-dir'] ?? process.env.HOMEPORT_DATA_DIR ?? defaultDataDir()
  await bundleCommand(dataDir, values.token, {
    folder,
    platforms: values.platform ?? [],
    output: values.output,
    organization: values.organization,
    modules: values.module ?? [],
    providers: values.provider ?? []
  })
}

async function importBundle(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, token: { type: 'string' }, organization: { type: 'string' } },
    allowPositionals: true,
    strict: true
  })
  const [file] = positionals
  if (!file || positionals.length > 1) throw new UsageError('homeport import takes one bundle file.')
  const dataDir = values['data-dir'] ?? process.env.HOMEPORT_DATA_DIR ?? defaultDataDir()
  await importCommand(dataDir, values.token, file, values.organization)
}

/** A data directory's file store, or a PostgreSQL database's. */
function openStoreAt(location: string): Promise<Store> {
  return /^postgres(ql)?:\/\//.test(location) ? openPostgresStore(location) : openFileStore(location)
}

async function migrate(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: { from: { type: 'string' }, to: { type: 'string' } }, allowPositionals: true, strict: true })
  if (!values.from || !values.to || positionals.length > 0) throw new UsageError('homeport migrate takes --from and --to: a data directory or a postgres:// URL each.')
  const from = await openStoreAt(values.from)
  try {
    const to = await openStoreAt(values.to)
    try {
      const report = await migrateStore(from, to, (message) => console.log(message))
      const total = Object.values(report.records).reduce((sum, count) => sum + count, 0)
      console.log(`Migrated ${total} records and ${report.archives} archives from ${redacted(values.from)} to ${redacted(values.to)}, and checked them.`)
      console.log(
        /^postgres/.test(values.to)
          ? `Now start Homeport with --database ${redacted(values.to)} (HOMEPORT_DATABASE_URL). Its data directory still keeps the admin token, TLS files and caches; give every replica the same HOMEPORT_ADMIN_TOKEN.`
          : `Now start Homeport with --data-dir ${values.to}.`
      )
    } finally {
      await to.close()
    }
  } finally {
    await from.close()
  }
}

/** A database URL without its password, for output. */
function redacted(location: string): string {
  return location.replace(/^(postgres(?:ql)?:\/\/[^:/@]+):[^@]*@/, '$1:***@')
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  // `--help` anywhere, for any command, is a question, not an unknown option.
  if (command === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE)
    return
  }
  if (command === undefined || command.startsWith('-')) return serve(argv)
  if (command === 'serve') return serve(rest)
  if (command === 'terraform-config') return writeTerraformConfig(rest)
  if (command === 'backup' || command === 'restore') return backupOrRestore(command, rest)
  if (command === 'mirror-provider') return mirrorProvider(rest)
  if (command === 'import-providers') return importProviders(rest)
  if (command === 'bundle') return bundle(rest)
  if (command === 'import') return importBundle(rest)
  if (command === 'migrate') return migrate(rest)
  throw new UsageError(`Unknown command "${command}".`)
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`homeport: ${(error as Error).message}\n\n${USAGE}`)
    process.exit(2)
  }
  console.error(`homeport: ${(error as Error).message}`)
  process.exit(1)
})
