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
    ['electron/core/common/x.ts', "import { a } from './files';"],
    ['electron/core/common/x.ts', "import { a } from '../../contract/errors';"],
    ['electron/core/jwt/x.ts', "import { a } from '../common';"],
    ['electron/core/keys/x.ts', "import { a } from '../jwt';"],
    ['electron/core/bank/x.ts', "import { a } from '../store';"],
    ['electron/core/service/x.ts', "import type { a } from '../bank';"],
    ['electron/core/walkthrough/x.ts', "import type { a } from '../core-types';"],
    ['electron/core/sandbox/x.ts', "import { a } from '../../contract/schemas/sandbox';"],
    ['electron/core/x.ts', "import { a } from './bank';"],
    ['electron/core/walkthrough/derive/x.ts', "import type { a } from '../facts/events';"],
    ['electron/core/walkthrough/derive/x.ts', "import { a } from '../../jwt';"],
    ['electron/core/conformance/cases/x.ts', "import { a } from '../../../contract/errors';"],
  ])('%s may %s', async (file, source) => {
    expect(await refusals(file, `${source}\nexport const x = 1;\n`)).toEqual([]);
  });

  // Layers inside the core (issue 25 item 3): each case names the rule that must refuse it, so a
  // refusal by some other rule does not count.
  it.each([
    ['electron/core/common/x.ts', "import { a } from '../jwt';", 'core/common imports no domain'],
    ['electron/core/common/x.ts', "import { a } from '../event-hub';", 'core/common imports no domain'],
    ['electron/core/jwt/x.ts', "import { a } from '../service';", 'never imports a feature'],
    ['electron/core/store/x.ts', "import { a } from '../sandbox';", 'never imports a feature'],
    ['electron/core/keys/x.ts', "import type { a } from '../bank';", 'never imports a feature'],
    ['electron/core/http/x.ts', "import type { a } from '../core-types';", 'never imports a feature'],
    ['electron/core/bank/x.ts', "import { a } from '../jwt/rsa';", 'through its barrel'],
    ['electron/core/bank/x.ts', "export { a } from '../http/budget';", 'through its barrel'],
    ['electron/core/walkthrough/x.ts', "import type { a } from '../console-core';", 'composition root'],
    ['electron/core/conformance/x.ts', "import { a } from '../dispatch';", 'composition root'],
    ['electron/core/bank/x.ts', "import type { a } from '../core-services';", 'composition root'],
    ['electron/core/x.ts', "import { a } from './bank/bank';", 'through its barrel'],
    // A domain's subfolders obey the same rules, one folder further down.
    ['electron/core/walkthrough/derive/x.ts', "import { a } from '../../jwt/rsa';", 'through its barrel'],
    ['electron/core/conformance/cases/x.ts', "import { a } from '../../console-core';", 'composition root'],
    ['electron/core/jwt/sub/x.ts', "import { a } from '../../bank';", 'never imports a feature'],
  ])('%s may not %s (%s)', async (file, source, rule) => {
    const messages = await refusals(file, `${source}\nexport const x = 1;\n`);
    expect(messages.some((m) => m.includes(rule))).toBe(true);
  });
});
