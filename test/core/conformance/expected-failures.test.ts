import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  applyExpectedFailures,
  expectedFailuresText,
  parseExpectedFailures,
  readExpectedFailures,
} from '../../../electron/core/conformance';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('--expected-failures', () => {
  it('parses an object of case ids to reasons, in order', () => {
    const m = parseExpectedFailures('{"notify.repeat.upper-case": "BANK-1", "user_auth.flow": " BANK-2 "}');
    expect([...m]).toEqual([
      ['notify.repeat.upper-case', 'BANK-1'],
      ['user_auth.flow', 'BANK-2'],
    ]);
  });

  it.each([
    ['[]', 'JSON object'],
    ['"x"', 'JSON object'],
    ['{"a": 1}', 'non-empty string'],
    ['{"a": ""}', 'non-empty string'],
    ['{"": "why"}', 'empty case id'],
    ['{not json', 'not valid JSON'],
  ])('refuses %s naming the flag', (text, words) => {
    let caught: unknown;
    try {
      parseExpectedFailures(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ code: 'BAD_ARGUMENT', details: { field: 'expected-failures' } });
    expect(String((caught as Error).message)).toContain(words);
  });

  it('a listed failure does not fail the run; an unlisted one does; a listed pass is named', () => {
    const expected = parseExpectedFailures('{"a": "known", "b": "fixed since", "gone": "renamed"}');
    const verdict = applyExpectedFailures(
      [
        { id: 'a', status: 'failed' },
        { id: 'b', status: 'passed' },
        { id: 'c', status: 'passed' },
      ],
      expected,
    );
    expect(verdict.exitCode).toBe(0);
    expect(verdict.expected).toEqual([{ id: 'a', reason: 'known' }]);
    expect(verdict.nowPassing).toEqual([{ id: 'b', reason: 'fixed since' }]);
    expect(verdict.notRun).toEqual([{ id: 'gone', reason: 'renamed' }]);
    const text = expectedFailuresText(verdict);
    expect(text).toContain('now passing');
    expect(text).toContain('b: fixed since');

    const failing = applyExpectedFailures(
      [
        { id: 'a', status: 'failed' },
        { id: 'd', status: 'failed' },
      ],
      expected,
    );
    expect(failing.exitCode).toBe(1);
    expect(failing.unexpected).toEqual(['d']);
  });

  it('reads a file, and refuses a missing one, a folder and an oversized one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'xfail-'));
    dirs.push(dir);
    const file = path.join(dir, 'known.json');
    await writeFile(file, '{"notify.concurrent": "BANK-9"}');
    expect((await readExpectedFailures(file)).get('notify.concurrent')).toBe('BANK-9');
    await expect(readExpectedFailures(path.join(dir, 'nope.json'))).rejects.toMatchObject({
      details: { field: 'expected-failures' },
    });
    await expect(readExpectedFailures(dir)).rejects.toThrow(/not a file/);
    const big = path.join(dir, 'big.json');
    await writeFile(big, `{"a": "${'x'.repeat(300 * 1024)}"}`);
    await expect(readExpectedFailures(big)).rejects.toThrow(/larger than/);
  });
});
