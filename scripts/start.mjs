#!/usr/bin/env node
// `npm start`: builds, then runs the desktop app with Electron; where Electron's binary is not
// installed, says so in one line and runs browser mode (`dets-console serve`) instead.
//
//   npm start [-- ARGS...]                        ARGS go to the app (e.g. `-- --ui-port 0`)
//   node scripts/start.mjs [--no-build] [-- ARGS...]
//
// --no-build skips the build (tests that must not rewrite dist/ under other running tests).
// Browser mode gets `--open` unless CI is set. Signals are forwarded and the child's exit code
// becomes ours.
//
// Finding Electron: since electron 42 the npm package has no install script; the binary is
// downloaded the first time `require('electron')` runs (node_modules/electron/index.js), which
// on a machine without access to github.com fails after a long wait. So this script never
// requires it: it reads the same files index.js reads (path.txt, dist/, and the
// ELECTRON_OVERRIDE_DIST_PATH variable) and only checks that the executable exists.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

const EXECUTABLE = { darwin: 'Electron.app/Contents/MacOS/Electron', win32: 'electron.exe' };

/** The Electron executable, or null when it is not installed. Never downloads anything. */
function findElectron(env = process.env, platform = process.platform) {
  let pkgDir;
  try {
    pkgDir = dirname(require.resolve('electron/package.json', { paths: [root] }));
  } catch {
    return null; // electron is not installed at all (e.g. a production-only install)
  }
  const pathFile = join(pkgDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const candidate = env.ELECTRON_OVERRIDE_DIST_PATH
    ? join(env.ELECTRON_OVERRIDE_DIST_PATH, relative || EXECUTABLE[platform] || 'electron')
    : relative
      ? join(pkgDir, 'dist', relative)
      : null;
  return candidate && existsSync(candidate) ? candidate : null;
}

function splitArgs(argv) {
  const dash = argv.indexOf('--');
  const own = dash === -1 ? argv : argv.slice(0, dash);
  const pass = dash === -1 ? [] : argv.slice(dash + 1);
  // `npm start -- --ui-port 0` arrives without the `--`: whatever is not ours passes through.
  return { build: !own.includes('--no-build'), pass: [...own.filter((a) => a !== '--no-build'), ...pass] };
}

/** Runs `command`, forwarding SIGINT/SIGTERM, and exits with its code. */
function runForwarding(command, args, env) {
  const child = spawn(command, args, { cwd: root, stdio: 'inherit', env });
  // Ctrl-C in a terminal reaches the whole process group, so the child usually has its SIGINT
  // already; a second SIGINT would kill it mid-shutdown (`serve` handles each signal once).
  // So both signals are passed on as SIGTERM, which every child treats as "stop cleanly".
  const forward = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('error', (err) => {
    process.stderr.write(`dets-console: could not start ${command}: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
  });
}

function main() {
  const { build, pass } = splitArgs(process.argv.slice(2));
  if (build) {
    const r = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }

  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE; // would make Electron a plain Node process

  const electron = findElectron(env);
  if (electron) {
    runForwarding(electron, ['.', ...pass], env);
    return;
  }

  const cli = join(root, 'dist/cli/dets-console.js');
  if (!existsSync(cli)) {
    process.stderr.write(`dets-console: ${cli} is missing: run \`npm run build\` first\n`);
    process.exit(1);
  }
  process.stderr.write(
    "dets-console: Electron's binary is not installed (electron 45 downloads it on first use, which an offline " +
      'or proxied install cannot do; fix: `npx --no install-electron` with access to github.com, or with ' +
      'ELECTRON_MIRROR set to a reachable mirror, or ELECTRON_GET_USE_PROXY=1 and HTTPS_PROXY behind a proxy); ' +
      'starting browser mode instead.\n',
  );
  const open = env.CI ? [] : ['--open'];
  runForwarding(process.execPath, [cli, 'serve', ...open, ...pass], env);
}

main();
