import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../electron/core/store/db';
import { createSignedPairs, SIGNED_PAIRS_FILE } from '../../../electron/core/bank/signed-pairs';
import { tempDir } from '../keys/helpers';
import { createSignedPairs as createLegacySignedPairs } from './fixtures/legacy-signed-pairs';

const T0 = Date.UTC(2026, 2, 10, 9, 0);
const HOUR = 3600_000;
let dataDir: string;
let clock: number;
const file = () => join(dataDir, SIGNED_PAIRS_FILE);
const open = () => createSignedPairs({ dataDir, now: () => clock });
/** The rows of signed_pairs, through a connection of its own. */
function rows(): unknown[] {
  const db = openDatabase(dataDir);
  try {
    return db.prepare('SELECT obj, sub, at_ms FROM signed_pairs ORDER BY seq').all();
  } finally {
    db.close();
  }
}

beforeEach(() => {
  dataDir = tempDir('dets-pairs-');
  clock = T0;
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 }));

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
    if (process.platform !== 'win32') expect(statSync(join(dataDir, 'console.db')).mode & 0o777).toBe(0o600);
  });

  it('forgets pairs after 24 hours: the next record removes them from the database', async () => {
    const pairs = open();
    for (let i = 0; i < 5; i += 1) await pairs.record(`obj-${i}`, 'sub', T0 - 25 * HOUR);
    expect(await pairs.subsFor('obj-1', 48 * 3600)).toEqual([]); // past the retention: never counted
    await pairs.record('fresh', 'kept@bank');
    expect(rows()).toEqual([{ obj: 'fresh', sub: 'kept@bank', at_ms: T0 }]);
  });

  it('keeps its pairs in the profile database, seen by a new instance', async () => {
    await open().record('obj', 'a@bank');
    expect(await open().subsFor('obj')).toEqual(['a@bank']);
    expect(existsSync(file())).toBe(false);
  });
});

describe('signed pairs: migration of the old file', () => {
  it('copies a file written by the file-based code, every pair and field, once, and sets the file aside', async () => {
    const lines = [
      { obj: 'DE89370400440532013000', sub: 'ops@bank', at: T0 - 10 * 60_000 },
      { obj: 'DE89370400440532013000', sub: 'teller@bank', at: T0 - 5 * 60_000 },
      { obj: '+4915112345678', sub: 'clerk-7', at: T0 - 2 * HOUR },
      { obj: 'old', sub: 'kept-too', at: T0 - 30 * HOUR },
    ];
    const legacy = createLegacySignedPairs({ dataDir, now: () => clock });
    for (const l of lines) await legacy.record(l.obj, l.sub, l.at);
    const text = readFileSync(file(), 'utf8');
    const log: string[] = [];
    const pairs = createSignedPairs({ dataDir, now: () => clock, log: (l) => log.push(l) });
    expect(await pairs.subsFor('DE89370400440532013000')).toEqual(['teller@bank', 'ops@bank']);
    expect(rows()).toEqual(lines.map((l) => ({ obj: l.obj, sub: l.sub, at_ms: l.at })));
    expect(existsSync(file())).toBe(false);
    expect(readFileSync(`${file()}.migrated`, 'utf8')).toBe(text);
    expect(log.join('\n')).toMatch(/copied 4 record\(s\)/);
    // A second instance (another process) finds it done and copies nothing twice.
    writeFileSync(file(), text); // even if the old file came back
    expect(await open().subsFor('+4915112345678', 3 * 3600)).toEqual(['clerk-7']);
    expect(rows()).toHaveLength(4);
  });

  it('reports damaged lines by number, copies the rest, and keeps the file', async () => {
    const text =
      '{"obj":"o","sub":"s1","at":' +
      String(T0 - 1000) +
      '}\nnot json at all\n{"obj":"o","sub":7,"at":1}\n{"obj":"o","sub":"s2","at":' +
      String(T0 - 500) +
      '}\n{"obj":"o","sub":"tor';
    writeFileSync(file(), text);
    const log: string[] = [];
    const pairs = createSignedPairs({ dataDir, now: () => clock, log: (l) => log.push(l) });
    expect(await pairs.subsFor('o')).toEqual(['s2', 's1']);
    const report = log.join('\n');
    expect(report).toContain('3 line(s)');
    expect(report).toContain('line 2: not JSON');
    expect(report).toContain('line 3: not an {obj, sub, at} pair');
    expect(report).toContain('line 5: cut short');
    expect(report).toContain(`${file()}.migrated`);
    expect(readFileSync(`${file()}.migrated`, 'utf8')).toBe(text);
  });
});
