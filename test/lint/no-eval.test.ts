/**
 * No code evaluated from text, and no file with the linter off (issue 25, "Checks that must
 * hold"): the store's writer and the keychain's worker were source strings run with
 * `new Worker(source, { eval: true })` under a file-wide `eslint-disable`; they are built files
 * now (electron/core/common/worker-file.ts). This keeps it so for every product source.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Product sources: the Node side, the renderer and the build scripts. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(full));
    else if (/\.(ts|tsx|mjs|cjs|js)$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** What is refused, each with why. */
const REFUSED: { name: string; re: RegExp }[] = [
  { name: 'a worker started from source text (eval: true)', re: /\beval\s*:\s*true\b/ },
  { name: 'eval()', re: /(^|[^.\w$])eval\s*\(/m },
  { name: 'new Function()', re: /(^|[^.\w$])(new\s+)?Function\s*\(/m },
  // The next-line and line forms are allowed: they name one line (and, by house rule, one rule).
  { name: 'a file-wide eslint-disable', re: /\/\*\s*eslint-disable(?!-)(\s|\*\/)/ },
];

/** The refused constructs in `text`, by name. */
function findings(text: string): string[] {
  return REFUSED.filter((r) => r.re.test(text)).map((r) => r.name);
}

describe('no code from text, no file-wide lint off', () => {
  it('finds none in electron/, renderer/ or scripts/', () => {
    const found: string[] = [];
    for (const dir of ['electron', 'renderer', 'scripts'])
      for (const file of sources(path.join(root, dir))) {
        for (const name of findings(fs.readFileSync(file, 'utf8')))
          found.push(`${path.relative(root, file)}: ${name}`);
      }
    expect(found).toEqual([]);
  });

  it('would find each of them (the check itself works)', () => {
    expect(findings('const w = new Worker(SOURCE, { eval: true, workerData });')).toEqual([
      'a worker started from source text (eval: true)',
    ]);
    expect(findings('const v = eval("1 + 1");')).toEqual(['eval()']);
    expect(findings('const f = new Function("a", "return a");')).toEqual(['new Function()']);
    expect(findings("const f = Function('return this')();")).toEqual(['new Function()']);
    expect(findings('/* eslint-disable */\nconst x: any = 1;')).toEqual(['a file-wide eslint-disable']);
    expect(findings('/* eslint-disable no-console */')).toEqual(['a file-wide eslint-disable']);
    // Allowed: one line, and words that only look alike.
    expect(findings('// eslint-disable-next-line require-yield\nscan: async function* () {}')).toEqual([]);
    expect(findings('/* eslint-disable-line */ const evaluation = retrieval(x); obj.eval(1);')).toEqual([]);
    expect(findings('const mode: { eval: false } = { eval: false };')).toEqual([]);
  });
});
