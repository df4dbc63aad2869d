import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import { defineConfig, globalIgnores } from 'eslint/config'
import importX from 'eslint-plugin-import-x'
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript'

/** Node's calls that create or replace files and folders: only server/files/folder-writes.ts imports them. */
const WRITE_CALLS = ['writeFile', 'writeFileSync', 'appendFile', 'appendFileSync', 'createWriteStream', 'rename', 'renameSync', 'link', 'linkSync', 'symlink', 'copyFile', 'cp', 'open', 'mkdir', 'mkdirSync']
const FILE_WRITES = ['node:fs', 'node:fs/promises', 'fs', 'fs/promises'].map((name) => ({
  name,
  importNames: WRITE_CALLS,
  message: 'Write files through server/files/folder-writes.ts: it refuses a path outside its folder.'
}))

const server = (folder) => `./src-main/server/${folder}`
const PORT_ONLY = 'A store adapter reaches the others only through the port (store/port.ts) and the shared engine.'

/**
 * The layers, enforced: HTTP (http/, api/) → domain → the store port. The domain never reaches
 * up into HTTP, the API, the boot or the commands; the store never reaches the domain; each store
 * adapter stands alone; and the GUI reaches the main process only for the shared wire types. That no
 * module imports itself back through others (no cycle) is dependency-cruiser's check.
 */
const LAYERS = [
  { target: server('domain'), from: [server('http'), server('api'), server('boot'), server('commands'), server('cli.ts')], message: 'The domain knows nothing of HTTP, the API, the boot or the commands.' },
  { target: server('store'), from: [server('domain'), server('http'), server('api'), server('boot'), server('commands')], message: 'The store knows nothing of the domain or what is above it.' },
  { target: server('store/file'), from: [server('store/memory'), server('store/postgres')], message: PORT_ONLY },
  { target: server('store/memory'), from: [server('store/file'), server('store/postgres')], message: PORT_ONLY },
  { target: server('store/postgres'), from: [server('store/file'), server('store/memory')], message: PORT_ONLY },
  { target: server('http'), from: [server('boot'), server('commands')], message: 'HTTP is built by the boot, not the other way round.' },
  { target: server('api'), from: [server('boot'), server('commands')], message: 'The API is built by the boot, not the other way round.' },
  { target: server('http'), from: server('api'), message: 'HTTP is the layer under the API: the app that mounts the API’s routers lives in api/app.ts.' },
  { target: server('data-dir'), from: [server('domain'), server('http'), server('api'), server('boot'), server('commands')], message: 'The data directory’s layout knows nothing above it.' },
  { target: server('domain/core'), from: [server('domain/organizations'), server('domain/modules'), server('domain/providers'), server('domain/login'), server('domain/archives'), server('domain/upstream'), server('domain/ingest'), server('domain/bundles'), server('domain/vcs'), server('domain/oci'), server('domain/assistant'), server('domain/people')], message: 'The domain’s core (errors, ids, access, authorization, tokens) knows none of the domain’s parts.' },
  { target: './src-renderer/src/lib', from: ['./src-renderer/src/app', './src-renderer/src/features', './src-renderer/src/pages'], message: 'The GUI’s lib/ is what app, features and pages build on; it knows none of them.' },
  { target: './src-main/shared', from: ['./src-main/server', './src-main/desktop', './src-renderer'], message: 'Shared types import nothing of either side.' },
  { target: './src-renderer', from: './src-main', except: ['./shared'], message: 'The GUI reaches the main process only for the shared wire types.' }
]

export default defineConfig([
  // electron-vite bundles its config to `electron.vite.config.ts.<time>-<hash>.mjs` beside it for a moment while it builds, which
  // `npm test` does beside the lint: a file that is gone by the time ESLint reads it would fail the lint.
  globalIgnores(['out/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', '*.config.ts.*.mjs']),
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  // Leaving a property out of a copy (`const { secret, ...rest } = record`) is how a field is dropped.
  { rules: { '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }] } },
  {
    files: ['src-main/**/*.ts', 'tests/**/*.ts', 'e2e/**/*.ts', 'bench/**/*.ts', '*.config.ts'],
    languageOptions: { globals: globals.node }
  },
  {
    // Tests and benchmarks read arbitrary JSON:API documents; typing every response would only restate the assertions.
    files: ['tests/**/*.ts', 'e2e/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off'
    }
  },
  {
    // Every file write goes through server/files/folder-writes.ts, which refuses a path outside its folder.
    files: ['src-main/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: FILE_WRITES }] }
  },
  {
    // The headless server runs under plain Node: loading electron there would try to download it.
    files: ['src-main/server/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: ['electron', ...FILE_WRITES] }] }
  },
  {
    files: ['src-main/server/files/folder-writes.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: ['electron'] }] }
  },
  {
    files: ['src-main/**/*.ts', 'src-renderer/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      // Where and how to read the modules an import names (TypeScript, with `.js` specifiers), so the layers' zones can follow them.
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['tsconfig.node.json', 'tsconfig.web.json'], noWarnOnMultipleProjects: true })]
    },
    // No cycle is dependency-cruiser's to check (.dependency-cruiser.cjs): it sees type-only imports too, where
    // import-x/no-cycle did not, and it took a fifth of ESLint's time to repeat a part of the same check.
    rules: { 'import-x/no-restricted-paths': ['error', { zones: LAYERS }] }
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    extends: [reactHooks.configs.flat.recommended],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/src-main/**'], message: 'Reach the shared wire types through @shared/…, not a path up into src-main.' }] }]
    }
  },
  {
    // Only pages (src-renderer/src/pages/) compose features: a feature uses another's data (its api.ts), never its components.
    files: ['src-renderer/src/features/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/src-main/**'], message: 'Reach the shared wire types through @shared/…, not a path up into src-main.' },
            { regex: '^\\.\\./(?!\\.)[^/]+/(?!api$)[^/]+$', message: 'A feature uses another feature’s api.ts only; a page (pages/) composes features’ components.' },
            { group: ['**/pages/**'], message: 'Features do not import pages; pages import features.' }
          ]
        }
      ]
    }
  },
  { files: ['**/*.js', '**/*.mjs', '**/*.cjs'], extends: [tseslint.configs.disableTypeChecked], languageOptions: { globals: globals.node } }
])
