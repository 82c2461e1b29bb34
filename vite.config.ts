import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The renderer is served from `app://console/` in the desktop app and from the headless host's
// loopback origin in browser mode, so every asset URL is relative.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: { outDir: '../dist/renderer', emptyOutDir: true, sourcemap: true },
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
});
