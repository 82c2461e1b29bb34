/**
 * The layer boundaries of STYLE.md 2, as ESLint enforces them: each case lints a one-line file
 * at a path inside a layer and expects the import to be refused (or allowed).
 */
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function refusals(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: `${root}/${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer boundaries', () => {
  it.each([
    ['electron/core/x.ts', "import { app } from 'electron';"],
    ['electron/core/x.ts', "import React from 'react';"],
    ['electron/core/x.ts', "import { a } from '../main/window';"],
    ['electron/core/x.ts', "import { a } from '../../renderer/app/app';"],
    ['electron/contract/x.ts', "import { readFile } from 'node:fs';"],
    ['electron/contract/x.ts', "import { a } from '../core/dispatch';"],
    ['electron/headless/x.ts', "import { app } from 'electron';"],
    ['electron/cli/x.ts', "import { a } from '../main/main';"],
    ['electron/preload/x.ts', "import { a } from '../core/dispatch';"],
    ['electron/preload/x.ts', "import { readFile } from 'node:fs';"],
    ['renderer/x.ts', "import { a } from '../electron/core/dispatch';"],
    ['renderer/x.ts', "import { ipcRenderer } from 'electron';"],
    ['renderer/x.ts', "import { readFile } from 'node:fs';"],
  ])('%s may not %s', async (file, source) => {
    expect(await refusals(file, `${source}\nexport const x = a;\n`.replace('= a', '= 1'))).not.toEqual([]);
  });

  it.each([
    ['electron/main/x.ts', "import { app } from 'electron';"],
    ['electron/main/x.ts', "import { a } from '../core/http/renderer-policy';"],
    ['electron/preload/x.ts', "import { buildFacade } from '../contract';"],
    ['electron/headless/x.ts', "import { a } from '../core/dispatch';"],
    ['renderer/x.ts', "import { buildFacade } from '../electron/contract';"],
  ])('%s may %s', async (file, source) => {
    expect(await refusals(file, `${source}\nexport const x = 1;\n`)).toEqual([]);
  });
});
