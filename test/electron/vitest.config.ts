/**
 * The real desktop app's suite (test/electron/*.spec.ts): run only by `npm run test:electron`
 * (scripts/test-electron.mjs), where an Electron binary exists. The `.spec.ts` names keep it out
 * of the normal vitest run (test/**\/*.test.ts), which cannot start Electron on a machine
 * without one. One file at a time: each launches a whole app.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/electron/**/*.spec.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/electron/support/summary-reporter.ts'],
    // scripts/test-electron.mjs has built dist/ (or npm test just did); this only checks it.
    globalSetup: ['./test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
