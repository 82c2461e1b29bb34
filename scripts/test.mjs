#!/usr/bin/env node
// `npm test`: every check a change must pass, in order, stopping at the first failure:
// lint (layer boundaries) and the Electron security audit, type-check, build, then every
// vitest suite (unit, integration, end-to-end in headless Chromium) inside a private D-Bus
// session with gnome-keyring, so keychain tests run against a real Secret Service.
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
  process.stdout.write(`== ${name} ok (${secs}s)\n`);
}
