#!/usr/bin/env node
// Builds everything the hosts run: the Node-side bundles (CLI, Electron main, preload, the
// worker threads) with esbuild and the renderer with Vite. Runs as `prepare`, so
// `npx dets-console` works right after `npm install` in a fresh checkout.
import { build } from 'esbuild';
import { chmod, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
// The worker threads' entries, each built as its own file and started with `new Worker(url)`
// (electron/core/common/worker-file.ts finds it; WORKER_NAMES there lists the same names).
const workers = JSON.parse(await readFile(join(root, 'scripts/worker-entries.json'), 'utf8'));
const only = process.argv.includes('--node-only')
  ? 'node'
  : process.argv.includes('--renderer-only')
    ? 'renderer'
    : 'all';

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  define: { __APP_VERSION__: JSON.stringify(pkg.version) },
};

const targets = [
  // The CLI bundles its own code; npm dependencies stay in node_modules (native ones must).
  {
    entry: 'electron/cli/main.ts',
    out: 'dist/cli/dets-console.js',
    format: 'esm',
    packages: 'external',
    banner: '#!/usr/bin/env node',
  },
  { entry: 'electron/main/main.ts', out: 'dist/main/main.js', format: 'esm', packages: 'external' },
  // A sandboxed preload can only require('electron'): bundle everything else into one CJS file.
  {
    entry: 'electron/preload/preload.ts',
    out: 'dist/preload/preload.cjs',
    format: 'cjs',
    external: ['electron'],
    minify: true,
  },
  // The worker threads, each its own file, beside the CLI and main bundles (dist/workers/).
  ...Object.entries(workers).map(([name, entry]) => ({
    entry,
    out: `dist/workers/${name}.mjs`,
    format: 'esm',
    packages: 'external',
  })),
];

if (only !== 'renderer') {
  for (const t of targets) {
    if (!existsSync(join(root, t.entry))) continue;
    await build({
      ...common,
      entryPoints: [t.entry],
      outfile: t.out,
      format: t.format,
      ...(t.packages ? { packages: t.packages } : {}),
      ...(t.external ? { external: t.external } : {}),
      ...(t.banner ? { banner: { js: t.banner } } : {}),
      ...(t.minify ? { minify: true } : {}),
    });
  }
  if (existsSync(join(root, 'dist/cli/dets-console.js')))
    await chmod(join(root, 'dist/cli/dets-console.js'), 0o755);
}

if (only !== 'node') {
  const vite = join(root, 'node_modules/vite/bin/vite.js');
  // Always the production bundle, whatever NODE_ENV the caller has (vitest sets "test").
  const env = { ...process.env, NODE_ENV: 'production' };
  const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
    env,
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
