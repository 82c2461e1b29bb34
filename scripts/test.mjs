#!/usr/bin/env node
// `npm test`: every check a change must pass, in order, stopping at the first failure:
// lint (layer boundaries) and the Electron security audit, type-check, build, then every
// vitest suite (unit, integration, end-to-end in headless Chromium) inside a private D-Bus
// session with gnome-keyring, so keychain tests run against a real Secret Service.
// Before them, the real desktop app's suite (scripts/test-electron.mjs): run where an Electron
// binary exists, else one line "electron: not run (no Electron binary)", never counted as passed;
// vitest's closing `tests: N passed, N failed, N skipped` stays the last summary line.
// DETS_ELECTRON_TESTS=separate leaves them to their own `npm run test:electron` (the CI workflow).
// Extra arguments go to vitest (`npm test -- test/core`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const extra = process.argv.slice(2);

const steps = [
  ['lint', [bin('eslint'), '.']],
  ['electron audit', [process.execPath, join(root, 'scripts/audit-electron.mjs')], () => existsSync(join(root, 'scripts/audit-electron.mjs'))],
  ['typecheck', [bin('tsc'), '--noEmit', '-p', 'tsconfig.json']],
  ['build', [process.execPath, join(root, 'scripts/build.mjs')]],
  [
    'electron',
    [process.execPath, join(root, 'scripts/test-electron.mjs'), '--summary'],
    () => {
      if (process.env.DETS_ELECTRON_TESTS !== 'separate') return true;
      process.stdout.write('\nelectron: not run by npm test (DETS_ELECTRON_TESTS=separate: npm run test:electron runs them)\n');
      return false;
    },
  ],
  ['tests', ['sh', join(root, 'scripts/with-keyring.sh'), bin('vitest'), 'run', ...extra]],
];

for (const [name, [cmd, ...args], when] of steps) {
  if (when && !when()) continue;
  process.stdout.write(`\n== ${name}: ${[cmd, ...args].map((a) => a.replace(root + '/', '')).join(' ')}\n`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, DETS_TEST_BUILT: '1' } });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) {
    process.stdout.write(`\n== ${name} FAILED (exit ${r.status ?? r.signal}) after ${secs}s\n`);
    process.exit(r.status || 1);
  }
  // The electron step reports its own verdict (run, or not run): "ok" here would read as passed.
  if (name !== 'electron') process.stdout.write(`== ${name} ok (${secs}s)\n`);
}
