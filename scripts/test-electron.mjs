#!/usr/bin/env node
// `npm run test:electron`: the end-to-end tests of the real desktop app (test/electron/*.spec.ts,
// Playwright's _electron), run only where an Electron binary exists.
//
// Where none does (an offline machine: `require('electron')` tries to download it and throws,
// or names a file that is not there), it prints ONE line saying so and exits 0 having run
// nothing: a desktop test that did not run is never reported as passed (issue 15). Elsewhere it
// builds dist/ (unless `npm test` just did), then runs the suite inside a private Secret Service
// session on Linux (scripts/with-keyring.sh) and under `xvfb-run -a` when Linux has no display.
//
// `--probe` only prints the one line about the binary (`electron: binary <path>` or the not-run
// line) and exits 0. `--summary` is how `npm test` (scripts/test.mjs) calls it: the reason goes
// on its own line and the verdict line reads exactly "electron: not run (no Electron binary)".
// DETS_REQUIRE_ELECTRON=1 (the CI workflow) turns a missing binary into a failure (exit 1).
// Extra arguments go to vitest (`npm run test:electron -- -t walkthrough`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Where the Electron binary is, or why there is none. Asked in a child process: electron's
 * index.js downloads on first use and prints its failure at length; only the outcome matters here.
 * @returns {{ path: string } | { reason: string }}
 */
export function probeElectron() {
  const r = spawnSync(process.execPath, ['-e', "process.stdout.write(String(require('electron')))"], {
    cwd: root,
    encoding: 'utf8',
    // A first download on a CI runner takes seconds; a wedged network must not hang the run.
    timeout: 300_000,
  });
  if (r.error) return { reason: `probing require('electron') failed: ${r.error.message}` };
  if (r.status !== 0) {
    const thrown = r.stderr
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^(Error|TypeError|RequestError)\b/.test(l))
      .at(-1);
    return {
      reason: `require('electron') threw${thrown ? `: ${thrown.replace(/^\w*Error: /, '')}` : ` (exit ${r.status})`}`,
    };
  }
  const path = r.stdout.trim();
  if (!path || !existsSync(path))
    return { reason: `require('electron') names ${path || 'no path'}, which does not exist` };
  return { path };
}

/** The one line printed when the suite is not run because there is no binary. */
export function notRunLine(reason) {
  return `electron: not run (no Electron binary: ${reason})`;
}

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

function main() {
  let args = process.argv.slice(2);
  const summary = args[0] === '--summary';
  if (summary) args = args.slice(1);
  const probe = probeElectron();
  if ('reason' in probe && process.env.DETS_REQUIRE_ELECTRON === '1') {
    // CI, where the binary can be downloaded: a missing one is a failure, never a quiet pass.
    process.stderr.write(`electron: no Electron binary although DETS_REQUIRE_ELECTRON=1: ${probe.reason}\n`);
    process.exit(1);
  }
  if ('reason' in probe) {
    process.stdout.write(
      summary
        ? `== electron: ${probe.reason}\nelectron: not run (no Electron binary)\n`
        : `${notRunLine(probe.reason)}\n`,
    );
    process.exit(0);
  }
  if (args[0] === '--probe') {
    process.stdout.write(`electron: binary ${probe.path}\n`);
    process.exit(0);
  }

  const env = { ...process.env, DETS_ELECTRON_BINARY: probe.path };
  if (env.DETS_TEST_BUILT !== '1') {
    delete env.NODE_ENV;
    const built = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], {
      cwd: root,
      stdio: 'inherit',
      env,
    });
    if (built.status !== 0) process.exit(built.status ?? 1);
    env.DETS_TEST_BUILT = '1';
  }

  const vitest = [
    join(root, 'node_modules/.bin/vitest'),
    'run',
    '--config',
    join(root, 'test/electron/vitest.config.ts'),
    ...args,
  ];
  let command = vitest;
  if (process.platform === 'linux') {
    command = ['sh', join(root, 'scripts/with-keyring.sh'), ...command];
    if (!env.DISPLAY && !env.WAYLAND_DISPLAY) {
      if (!hasCommand('xvfb-run')) {
        process.stderr.write(
          'electron: cannot run: no display (DISPLAY is unset) and no xvfb-run: install xvfb, or run under a desktop session\n',
        );
        process.exit(1);
      }
      command = ['xvfb-run', '-a', ...command];
    }
  }
  const r = spawnSync(command[0], command.slice(1), { cwd: root, stdio: 'inherit', env });
  process.exit(r.status ?? 1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
