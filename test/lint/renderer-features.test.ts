/**
 * Renderer features import data, not each other (issue 25 item 5), as ESLint enforces it: each
 * case lints a one-line file inside a feature folder and expects the import to be refused (or
 * allowed), the way test/lint/boundaries.test.ts checks the host layers.
 */
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The messages of both import rules (the layer rule and the feature rule) for `source` at `file`. */
async function refusals(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${source}\nexport const x = a;\n`, { filePath: `${root}/${file}` });
  return (result?.messages ?? [])
    .filter(
      (m) => m.ruleId === 'no-restricted-imports' || m.ruleId === '@typescript-eslint/no-restricted-imports',
    )
    .map((m) => m.message);
}

describe('renderer feature imports', () => {
  it.each([
    ['renderer/features/service/x.ts', "import { a } from '../keys/kid-select';"],
    ['renderer/features/service/x.tsx', "import type { a } from '../environments/env-form';"],
    ['renderer/features/composer/x.ts', "import { a } from '../../features/keys/keys-store';"],
    ['renderer/features/inspector/x.ts', "import { a } from '../../app/routes';"],
    ['renderer/features/inspector/x.ts', "import { a } from '../../app/ui-store';"],
    ['renderer/features/bank/x.ts', "import { a } from '../../app/shell';"],
  ])('%s may not %s', async (file, source) => {
    expect(await refusals(file, source)).not.toEqual([]);
  });

  it.each([
    ['renderer/features/keys/x.ts', "import { a } from './keys-store';"],
    ['renderer/features/keys/x.ts', "import { a } from '../../data/keys';"],
    ['renderer/features/keys/x.ts', "import { a } from '../../shared/field';"],
    ['renderer/features/keys/x.ts', "import { a } from '../../ui/dialog';"],
    ['renderer/features/keys/x.ts', "import { a } from '../../api/client-context';"],
    ['renderer/features/keys/x.ts', "import { a } from '../../app/navigation';"],
    ['renderer/features/keys/x.ts', "import { a } from '../../../electron/contract';"],
    ['renderer/features/keys/x.ts', "import { a } from '@tanstack/react-query';"],
    // Outside the features the rule does not apply: the app shell lists the pages.
    ['renderer/app/x.ts', "import { a } from '../features/keys/keys-page';"],
  ])('%s may %s', async (file, source) => {
    expect(await refusals(file, source)).toEqual([]);
  });

  it("keeps the renderer's own layer rule on feature files", async () => {
    expect(
      await refusals('renderer/features/keys/x.ts', "import { a } from '../../../electron/core/dispatch';"),
    ).not.toEqual([]);
  });

  it('names what to do instead', async () => {
    const [message] = await refusals(
      'renderer/features/service/x.ts',
      "import { a } from '../keys/kid-select';",
    );
    expect(message).toMatch(/renderer\/data, renderer\/shared or renderer\/ui/);
  });
});
