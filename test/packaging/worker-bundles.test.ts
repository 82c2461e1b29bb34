/**
 * What the built worker bundles carry (dist/workers/*.mjs, scripts/worker-entries.json). A worker
 * runs from app.asar.unpacked beside the native modules only (electron-builder.json asarUnpack):
 * an npm package bundled into it (zod, through a barrel that reaches the contract) would make it
 * larger and slower to start in every host, and a package left external would not resolve there.
 * So each bundle imports only Node's built-ins statically, loads its one native module (libsql,
 * or the keychain's) through createRequire, and holds no npm package's code. This is the rule
 * `store/db.ts` and `store/records.ts` keep by importing leaf files of `common/` and `http/`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WORKER_NAMES } from '../../electron/core/common/worker-file';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The modules a bundle imports statically (`import … from "x"`, `import "x"`, `import("x")`). */
export function staticImports(code: string): string[] {
  const found = new Set<string>();
  for (const m of code.matchAll(/^\s*import\s+(?:[^'"]*?\s+from\s+)?["']([^"']+)["']/gm)) found.add(m[1]!);
  for (const m of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.add(m[1]!);
  for (const m of code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)) found.add(m[1]!);
  return [...found].sort();
}

/** The source files esbuild put in a bundle (it writes each one's path as a comment above it). */
export function bundledSources(code: string): string[] {
  return [...code.matchAll(/^\/\/ ((?:electron|node_modules)\/\S+)$/gm)].map((m) => m[1]!);
}

describe('the worker bundles', () => {
  it('are built, one per worker the code starts', () => {
    for (const name of WORKER_NAMES)
      expect(existsSync(join(root, 'dist/workers', `${name}.mjs`)), name).toBe(true);
  });

  it.each(WORKER_NAMES.map((n) => [n]))(
    '%s imports only node: built-ins and bundles no npm package',
    (name) => {
      const code = readFileSync(join(root, 'dist/workers', `${name}.mjs`), 'utf8');
      const imports = staticImports(code);
      expect(imports.length).toBeGreaterThan(0);
      expect(imports.filter((m) => !m.startsWith('node:'))).toEqual([]);
      const sources = bundledSources(code);
      expect(sources.length).toBeGreaterThan(0);
      expect(sources.filter((s) => s.startsWith('node_modules/'))).toEqual([]);
      expect(sources.filter((s) => s.startsWith('electron/contract/'))).toEqual([]);
    },
  );

  it('finds what a bundle that pulled zod in would show', () => {
    const leaky = [
      '// node_modules/zod/v4/core/core.js',
      'var x = 1;',
      '// electron/contract/schemas/events.ts',
      'import { z } from "zod";',
      'import { Worker } from "node:worker_threads";',
    ].join('\n');
    expect(staticImports(leaky)).toEqual(['node:worker_threads', 'zod']);
    expect(bundledSources(leaky)).toEqual([
      'node_modules/zod/v4/core/core.js',
      'electron/contract/schemas/events.ts',
    ]);
  });
});
