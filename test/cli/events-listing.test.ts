/**
 * `dets-console events` lists oldest first whatever the filters (DESIGN.md "Command line"), a
 * search included, across every place a search reads (the full-text index for exchanges and
 * traces, the plain text of notifications and callbacks) and past the reader's 500-row chunks;
 * and an empty listing says which it is: nothing stored, or nothing matching the filters it
 * names (issue 24 item 10: a search that matched nothing said "No events stored.").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../electron/core/event-hub';
import { blankEvent, openEventStore, type NewEvent } from '../../electron/core/store';
import { jsonLines, runBuiltCli, runInProcess } from './helpers';

const tmp = mkdtempSync(join(tmpdir(), 'dets-cli-listing-'));
const profile = join(tmp, 'profile');
const KINDS = ['exchange', 'notification', 'callback'] as const;
const COUNT = 1500;
const t0 = Date.parse('2026-02-01T09:00:00.000Z');

beforeAll(async () => {
  const store = await openEventStore({ dataDir: profile, events: new EventHub() });
  const appends: Array<Promise<unknown>> = [];
  for (let i = 0; i < COUNT; i++) {
    const kind = KINDS[i % 3]!;
    const event: NewEvent = {
      ...blankEvent(kind, new Date(t0 + i * 1000).toISOString()),
      // Every event holds "settle"; one in ten holds "quarterly" too.
      path: kind === 'exchange' ? `http://127.0.0.1:9/settle/${i}` : `/api/svc/settle-${i}`,
      obj: i % 10 === 0 ? `quarterly-${i}` : `monthly-${i}`,
    };
    appends.push(store.append(event, { durable: kind === 'notification' }));
  }
  await Promise.all(appends);
  await store.close();
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true, maxRetries: 5 }));

const events = (args: string[]) => runInProcess(['events', ...args]);

/** The events' numbers (from their paths), in the order listed. */
async function listed(...args: string[]): Promise<number[]> {
  const r = await events(['--data-dir', profile, '--json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return jsonLines(r.stdout).map((e) => Number(/(\d+)$/.exec(String(e.path))![1]));
}

const range = (from: number, to: number, step = 1) =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, k) => from + k * step);

describe('events --search lists oldest first', () => {
  it('every match, across the index and the plain text, past a chunk', async () => {
    expect(await listed('--search', 'settle')).toEqual(range(0, COUNT - 1));
    expect(await listed('--search', 'QUARTERLY')).toEqual(range(0, COUNT - 1, 10));
  });

  it('the newest N of the matches, still oldest first', async () => {
    expect(await listed('--search', 'settle', '--limit', '700')).toEqual(range(COUNT - 700, COUNT - 1));
    expect(await listed('--search', 'quarterly', '--limit', '3')).toEqual([1470, 1480, 1490]);
    expect(await listed('--search', 'settle', '--kind', 'exchange', '--limit', '4')).toEqual([
      1488, 1491, 1494, 1497,
    ]);
    expect(await listed('--search', 'settle', '--kind', 'callback', '--limit', '2')).toEqual([1496, 1499]);
  });

  it('a search too short for the index, and one with --since', async () => {
    const since = new Date(t0 + (COUNT - 20) * 1000).toISOString();
    expect(await listed('--search', '14', '--since', since)).toEqual(range(COUNT - 20, COUNT - 1));
  });

  it('the table says oldest first, and its rows are', async () => {
    const r = await runBuiltCli(['events', '--data-dir', profile, '--search', 'quarterly']);
    expect(r.code, r.stderr).toBe(0);
    const times = r.stdout
      .split('\n')
      .filter((l) => /^\d{4}-/.test(l))
      .map((l) => l.slice(0, 24));
    expect(times).toHaveLength(COUNT / 10);
    expect([...times].sort()).toEqual(times);
    expect(times[0]).toBe(new Date(t0).toISOString());
    expect(r.stdout).toMatch(/\n150 events, oldest first\.\n$/);
  });
});

describe('an empty listing says why', () => {
  it('"No events match" naming the filters when the profile has events', async () => {
    const r = await runBuiltCli(['events', '--data-dir', profile, '--search', 'no such words']);
    expect(r).toEqual({
      code: 0,
      signal: null,
      stdout: 'No events match --search "no such words".\n',
      stderr: '',
    });
    const since = new Date(t0 + COUNT * 1000 + 60_000).toISOString();
    const both = await events([
      '--data-dir',
      profile,
      '--kind',
      'callback',
      '--since',
      since,
      '--search',
      'settle',
    ]);
    expect(both.stdout).toBe(`No events match --kind callback --since ${since} --search "settle".\n`);
  });

  it('"No events stored." when there is nothing to match, filters or not', async () => {
    const empty = join(tmp, 'empty');
    for (const args of [[], ['--search', 'settle'], ['--since', '2h']]) {
      const r = await events(['--data-dir', empty, ...args]);
      expect(r).toEqual({ code: 0, stdout: 'No events stored.\n', stderr: '' });
    }
    expect((await events(['--data-dir', empty, '--kind', 'callback', '--search', 'x'])).stdout).toBe(
      'No callback events stored.\n',
    );
  });

  it('--json prints nothing either way', async () => {
    expect((await events(['--data-dir', profile, '--search', 'no such words', '--json'])).stdout).toBe('');
    expect((await events(['--data-dir', join(tmp, 'empty'), '--json'])).stdout).toBe('');
  });
});
