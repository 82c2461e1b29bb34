/**
 * `npm run test:electron` where there is no Electron binary: one line, exit 0, nothing run, and
 * `npm test`'s form of the line. ELECTRON_OVERRIDE_DIST_PATH at a folder that does not exist
 * makes `require('electron')` name a missing file on any machine, with or without a binary.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const missing = join(root, 'test-results', 'no-electron-here');

function run(...args: string[]) {
  return runWith({}, ...args);
}

function runWith(env: Record<string, string>, ...args: string[]) {
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    ELECTRON_OVERRIDE_DIST_PATH: missing,
    DETS_TEST_BUILT: '0',
  };
  delete base.DETS_REQUIRE_ELECTRON;
  return spawnSync(process.execPath, [join(root, 'scripts/test-electron.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...base, ...env },
  });
}

describe('scripts/test-electron.mjs without an Electron binary', () => {
  it('says so in one line, names why, runs nothing and exits 0', () => {
    const r = run();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^electron: not run \(no Electron binary: require\('electron'\) names .+, which does not exist\)$/,
    );
    expect(lines[0]).toContain('no-electron-here');
  });

  it('gives npm test its summary line: the reason first, then "electron: not run (no Electron binary)"', () => {
    const r = run('--summary');
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^== electron: require\('electron'\) names /);
    expect(lines[1]).toBe('electron: not run (no Electron binary)');
  });

  it('fails instead where the binary is required (DETS_REQUIRE_ELECTRON=1, the CI workflow)', () => {
    const r = runWith({ DETS_REQUIRE_ELECTRON: '1' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^electron: no Electron binary although DETS_REQUIRE_ELECTRON=1: /);
  });
});
