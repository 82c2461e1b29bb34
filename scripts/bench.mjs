#!/usr/bin/env node
// npm run bench: bundles the bench (test/bench/main.ts) and its server entries
// (test/bench/servers/*.ts, among them the sandbox core straight from source) into dist/bench
// with esbuild, then runs it in this process. dist/ is build output: ignored by git, ESLint and
// Prettier, and not packaged. Results and profiles go to .bench/. Settings: BENCH_* variables,
// listed in test/bench/lib/config.ts and docs/benchmarks.md. Exit 0 when the bench ran (targets
// may be MISSED), 1 when it broke, 2 for a bad setting.
import { build, stop as stopEsbuild } from 'esbuild';
import { readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = join(root, 'dist', 'bench');
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
const workers = JSON.parse(await readFile(join(root, 'scripts/worker-entries.json'), 'utf8'));

const servers = (await readdir(join(root, 'test/bench/servers'))).filter((f) => f.endsWith('.ts'));
const entryPoints = {
  bench: 'test/bench/main.ts',
  ...Object.fromEntries(servers.map((f) => [`servers/${f.replace(/\.ts$/, '')}`, `test/bench/servers/${f}`])),
  // The store's and the keychain's worker threads, built from the same sources as the bench.
  ...Object.fromEntries(Object.entries(workers).map(([name, entry]) => [`workers/${name}`, entry])),
};

await rm(buildDir, { recursive: true, force: true });
try {
  await build({
    absWorkingDir: root,
    entryPoints,
    outdir: buildDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // npm packages (autocannon, jose, zod) load from node_modules, as in the built CLI.
    packages: 'external',
    logLevel: 'warning',
    define: { __APP_VERSION__: JSON.stringify(pkg.version) },
  });
} catch (err) {
  process.stderr.write(`bench: build failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
} finally {
  await stopEsbuild();
}

const { main } = await import(pathToFileURL(join(buildDir, 'bench.mjs')).href);
let code;
try {
  code = await main({ root, buildDir });
} catch (err) {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  code = 1;
}
process.exit(code);
