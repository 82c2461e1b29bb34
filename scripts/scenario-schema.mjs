#!/usr/bin/env node
// Writes schemas/scenario.schema.json from the zod schema the runner validates with
// (electron/contract/schemas/scenario.ts, scenarioJsonSchema). test/contract/scenario-schema.test.ts
// fails when the file is not what this writes; `--check` exits 1 instead of writing.
import { build } from 'esbuild';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'schemas/scenario.schema.json');
// Inside the checkout, so the bundle resolves zod from its node_modules.
await mkdir(join(root, 'node_modules/.cache'), { recursive: true });
const dir = await mkdtemp(join(root, 'node_modules/.cache/scenario-schema-'));
try {
  const bundle = join(dir, 'scenario.mjs');
  await build({
    absWorkingDir: root,
    entryPoints: ['electron/contract/schemas/scenario.ts'],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  const { scenarioJsonSchema } = await import(pathToFileURL(bundle).href);
  const text = `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
  if (process.argv.includes('--check')) {
    const current = await readFile(out, 'utf8').catch(() => '');
    if (current !== text) {
      process.stderr.write('schemas/scenario.schema.json is stale: run node scripts/scenario-schema.mjs\n');
      process.exitCode = 1;
    }
  } else {
    await writeFile(out, text);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
