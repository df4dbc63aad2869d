import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import { defineConfig, globalIgnores } from 'eslint/config'

/** Node's calls that create or replace files and folders: only server/files/folder-writes.ts imports them. */
const WRITE_CALLS = ['writeFile', 'writeFileSync', 'appendFile', 'appendFileSync', 'createWriteStream', 'rename', 'renameSync', 'link', 'linkSync', 'symlink', 'copyFile', 'cp', 'open', 'mkdir', 'mkdirSync']
const FILE_WRITES = ['node:fs', 'node:fs/promises', 'fs', 'fs/promises'].map((name) => ({
  name,
  importNames: WRITE_CALLS,
  message: 'Write files through server/files/folder-writes.ts: it refuses a path outside its folder.'
}))

export default defineConfig([
  globalIgnores(['out/**', 'node_modules/**', 'test-results/**', 'playwright-report/**']),
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
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    extends: [reactHooks.configs.flat.recommended]
  },
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked], languageOptions: { globals: globals.node } }
])
