import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleError } from '../../../electron/contract/errors';
import { createSignedPairs, SIGNED_PAIRS_FILE } from '../../../electron/core/jwt/signed-pairs';
import { tempDir } from '../keys/helpers';

const T0 = Date.UTC(2026, 2, 10, 9, 0);
const HOUR = 3600_000;
let dataDir: string;
let clock: number;
const file = () => join(dataDir, SIGNED_PAIRS_FILE);
const open = () => createSignedPairs({ dataDir, now: () => clock });

beforeEach(() => {
  dataDir = tempDir('dets-pairs-');
  clock = T0;
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('signed pairs', () => {
  it('answers [] before anything was signed', async () => {
    expect(await open().subsFor('DE89370400440532013000')).toEqual([]);
  });

  it('gives the subs signed for an obj within the hour, newest first, each once', async () => {
    const pairs = open();
    await pairs.record('obj-1', 'old@bank', T0 - 2 * HOUR);
    await pairs.record('obj-1', 'a@bank', T0 - 30 * 60_000);
    await pairs.record('obj-2', 'other@bank', T0 - 60_000);
    await pairs.record('obj-1', 'b@bank', T0 - 10_000);
    await pairs.record('obj-1', 'a@bank', T0 - 5_000);
    expect(await pairs.subsFor('obj-1')).toEqual(['a@bank', 'b@bank']);
    expect(await pairs.subsFor('obj-1', 3 * 3600)).toEqual(['a@bank', 'b@bank', 'old@bank']);
    expect(await pairs.subsFor('obj-2')).toEqual(['other@bank']);
    expect(await pairs.subsFor('obj-3')).toEqual([]);
  });

  it('is shared by two instances (the CLI and a running serve): each sees what the other recorded', async () => {
    const cli = open();
    const serve = open();
    expect(await serve.subsFor('obj')).toEqual([]); // serve has read (and cached) the empty state
    await cli.record('obj', 'first@bank');
    expect(await serve.subsFor('obj')).toEqual(['first@bank']);
    clock += 1000;
    await serve.record('obj', 'second@bank');
    await cli.record('obj', 'third@bank', clock + 1);
    expect(await serve.subsFor('obj')).toEqual(['third@bank', 'second@bank', 'first@bank']);
    expect(await cli.subsFor('obj')).toEqual(['third@bank', 'second@bank', 'first@bank']);
    if (process.platform !== 'win32') expect(statSync(file()).mode & 0o777).toBe(0o600);
  });

  it('forgets pairs after 24 hours and compacts the file once stale lines pile up', async () => {
    const pairs = open();
    for (let i = 0; i < 199; i += 1) await pairs.record(`obj-${i}`, 'sub', T0 - 25 * HOUR);
    await pairs.record('fresh', 'kept@bank');
    expect(readFileSync(file(), 'utf8').trim().split('\n')).toHaveLength(200); // 199 stale: not yet
    await pairs.record('old', 'sub', T0 - 25 * HOUR);
    await pairs.record('fresh', 'also@bank', T0 + 1); // 200 stale, 1 live: compacted first
    const lines = readFileSync(file(), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(await pairs.subsFor('fresh')).toEqual(['also@bank', 'kept@bank']);
    expect(await pairs.subsFor('obj-1', 48 * 3600)).toEqual([]);
  });

  it('ignores a last line cut short by a crash and keeps the next pair on its own line', async () => {
    const pairs = open();
    await pairs.record('obj', 'a@bank');
    appendFileSync(file(), '{"obj":"obj","sub":"tor');
    expect(await pairs.subsFor('obj')).toEqual(['a@bank']);
    await pairs.record('obj', 'b@bank', T0 + 1);
    expect(await open().subsFor('obj')).toEqual(['b@bank', 'a@bank']);
    expect(readFileSync(file(), 'utf8')).not.toContain('tor');
  });

  it('reports a damaged file as STATE_DAMAGED naming it, and leaves it untouched', async () => {
    const text = '{"obj":"o","sub":"s","at":1}\nnot json at all\n{"obj":"o","sub":"s","at":2}\n';
    writeFileSync(file(), text);
    const pairs = open();
    for (const attempt of [() => pairs.subsFor('o'), () => pairs.record('o', 's')]) {
      const err = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConsoleError);
      expect((err as ConsoleError).code).toBe('STATE_DAMAGED');
      expect((err as ConsoleError).message).toContain(file());
      expect((err as ConsoleError).message).toContain('line 2');
    }
    expect(readFileSync(file(), 'utf8')).toBe(text);
  });
});
