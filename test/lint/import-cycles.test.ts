/**
 * Zero import cycles in electron/ and renderer/ (issue 25 item 3). A cycle makes load order
 * matter (a value read before its module ran), hides which layer depends on which, and is how a
 * composition root and its features or a page table and its pages end up knotted.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { findCycles, importGraph } from './import-graph';

const root = fileURLToPath(new URL('../..', import.meta.url));
const relative = (cycle: string[]) => cycle.map((f) => path.relative(root, f)).join(' -> ');

describe('import cycles', () => {
  let scratch: string | undefined;
  afterEach(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    scratch = undefined;
  });

  it('electron/ and renderer/ have none', () => {
    const graph = importGraph([path.join(root, 'electron'), path.join(root, 'renderer')]);
    // The graph is the real one: the composition root imports its features, the app its pages.
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get(path.join(root, 'electron/core/console-core.ts'))).toContain(
      path.join(root, 'electron/core/walkthrough/index.ts'),
    );
    expect(findCycles(graph).map(relative)).toEqual([]);
  });

  it('finds a cycle through type-only, re-export and dynamic imports, and none in a chain', () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'dets-cycles-'));
    mkdirSync(path.join(scratch, 'core'));
    const files: Record<string, string> = {
      'core/index.ts': "export { b } from './b';\n",
      'core/b.ts': "import type { C } from '../c';\nexport const b = 1 as unknown as C;\n",
      'c.tsx': "export type C = number;\nexport const load = () => import('./core');\n",
      'chain.ts': "import { b } from './core';\nexport const d = b;\n",
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(scratch, name), text);
    const cycles = findCycles(importGraph([scratch])).map((c) => c.map((f) => path.relative(scratch!, f)));
    expect(cycles).toEqual([['c.tsx', 'core/index.ts', 'core/b.ts', 'c.tsx']]);

    writeFileSync(path.join(scratch, 'c.tsx'), 'export type C = number;\n');
    expect(findCycles(importGraph([scratch]))).toEqual([]);
  });
});
