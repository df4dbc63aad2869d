import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

export default defineConfig({
  main: {
    build: {
      lib: {
        entry: {
          // The Electron shell, and the headless registry that runs under plain Node.
          index: resolve('src-main/index.ts'),
          cli: resolve('src-main/server/cli.ts'),
          // The HCL parser's worker thread, a module of its own (see hcl-parser.ts).
          'hcl-worker': resolve('src-main/server/domain/ingest/hcl-worker.ts')
        }
      }
    }
  },
  preload: {
    // A sandboxed preload must be a single CommonJS bundle.
    build: { lib: { entry: { index: resolve('src-main/preload.ts') }, formats: ['cjs'] } }
  },
  renderer: {
    root: resolve('src-renderer'),
    // The GUI's one way to the main process's code: the wire types and helpers both sides share.
    resolve: { alias: { '@shared': resolve('src-main/shared') } },
    build: { minify: true, rolldownOptions: { input: resolve('src-renderer/index.html') } },
    plugins: [
      react(),
      {
        // electron-vite makes asset URLs relative (`./assets/…`), for a window that loads files from disk. Homeport's
        // window and a browser load the GUI from the server, at real paths (`/orgs/acme/modules`): they must be absolute.
        name: 'homeport:absolute-assets',
        config: (config) => {
          config.base = '/'
        }
      }
    ]
  }
})
