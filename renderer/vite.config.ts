/**
 * Vite build of the renderer: `vite build --config renderer/vite.config.ts` writes `dist/renderer`
 * (served by the gateway at `/` and by the Electron shell at `app://svc/`). No inline scripts and no
 * remote assets, so the CSP `script-src 'self'` holds; routes are client-side (the gateway and the
 * `app://` handler fall back to index.html). A second entry, `mobile.html`, is the phone
 * authenticator (issue 14 item 7), served by the gateway at `/m/` (its files under `public/m/`:
 * the web app manifest and icons).
 */
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The module-preload polyfill would be an extra script; every supported engine has modulepreload.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 700,
    rolldownOptions: {
      input: { index: fileURLToPath(new URL('./index.html', import.meta.url)), mobile: fileURLToPath(new URL('./mobile.html', import.meta.url)) },
    },
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:8080', '/dirauth': 'http://127.0.0.1:8080' } },
});
