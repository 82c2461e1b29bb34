#!/usr/bin/env node
// Writes the files made from the scenario code, so they cannot drift from it:
// - schemas/scenario.schema.json, from the zod schema the runner validates with
//   (electron/contract/schemas/scenario.ts, scenarioJsonSchema);
// - docs/scenarios/conformance.json, the conformance plan as a scenario
//   (electron/core/scenario/conformance-plan.ts).
// test/contract/scenario-schema.test.ts fails when either is not what this writes;
// `--check` exits 1 instead of writing.
import { build } from 'esbuild';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Inside the checkout, so the bundles resolve zod and jose from its node_modules.
await mkdir(join(root, 'node_modules/.cache'), { recursive: true });
const dir = await mkdtemp(join(root, 'node_modules/.cache/scenario-schema-'));
try {
  await build({
    absWorkingDir: root,
    entryPoints: {
      schema: 'electron/contract/schemas/scenario.ts',
      plan: 'electron/core/scenario/conformance-plan.ts',
    },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    define: { __APP_VERSION__: '"0"' },
    logLevel: 'warning',
  });
  const { scenarioJsonSchema } = await import(pathToFileURL(join(dir, 'schema.mjs')).href);
  const { conformanceScenario } = await import(pathToFileURL(join(dir, 'plan.mjs')).href);
  const outputs = [
    ['schemas/scenario.schema.json', scenarioJsonSchema()],
    ['docs/scenarios/conformance.json', conformanceScenario()],
  ];
  for (const [file, value] of outputs) {
    const text = `${JSON.stringify(value, null, 2)}\n`;
    if (process.argv.includes('--check')) {
      const current = await readFile(join(root, file), 'utf8').catch(() => '');
      if (current !== text) {
        process.stderr.write(`${file} is stale: run node scripts/scenario-schema.mjs\n`);
        process.exitCode = 1;
      }
    } else {
      await writeFile(join(root, file), text);
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
