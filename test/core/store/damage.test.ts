import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';
import { RECOVERY_REQUEST, recoverDatabase } from '../../../electron/core/store/recover';
import { claimProfile } from '../../../electron/core/store/owner';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { runBuiltCli } from '../../cli/helpers';
import { callback, leavesOf, notification, overwritePage, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const N = 3000;

/** The profile's tables besides the events, which `store recover` must carry over too. */
const STATE_TABLES = [
  'meta',
  'sandbox_settings',
  'sandbox_keys',
  'sandbox_counterparties',
  'sandbox_traces',
  'walkthrough_progress',
  'service_exchanges',
  'signed_pairs',
] as const;

/**
 * Rows in every state table (`counterparties` of them in sandbox_counterparties), written as the
 * product's tables hold them, and a deleted trace: the traces' AUTOINCREMENT counter is then
 * past the highest row, and must stay there.
 */
function fillState(file: string, counterparties = 20): void {
  const db = new Database(file);
  db.exec('BEGIN');
  db.prepare('INSERT OR REPLACE INTO sandbox_settings (id, record) VALUES (1, ?)').run('{"latency_ms":5}');
  db.prepare('INSERT INTO sandbox_keys (kid, record) VALUES (?, ?)').run(
    'sbx-1',
    '{"kid":"sbx-1","sealed":"v1.abc"}',
  );
  const cp = db.prepare('INSERT INTO sandbox_counterparties (guid, created_at, record) VALUES (?, ?, ?)');
  for (let i = 0; i < counterparties; i++)
    cp.run(
      `guid-${i}`,
      new Date(1_700_000_000_000 + i).toISOString(),
      JSON.stringify({ i, pad: 'p'.repeat(200) }),
    );
  const tr = db.prepare('INSERT INTO sandbox_traces (counterparty_guid, record) VALUES (?, ?)');
  for (let i = 0; i < 10; i++) tr.run(`guid-${i}`, JSON.stringify({ trace: i }));
  db.exec('DELETE FROM sandbox_traces WHERE seq = 10');
  db.prepare('INSERT INTO walkthrough_progress (environment_id, record) VALUES (?, ?)').run(
    'env-1',
    '{"step":3}',
  );
  db.prepare('INSERT INTO service_exchanges (at, record) VALUES (?, ?)').run(
    '2026-11-24T00:00:00Z',
    '{"x":1}',
  );
  db.prepare('INSERT INTO signed_pairs (obj, sub, at_ms) VALUES (?, ?, ?)').run('o', 's', 1_700_000_000_000);
  db.prepare("INSERT INTO meta (key, value) VALUES ('test-marker', 'kept')").run();
  db.exec('COMMIT');
  db.close();
}

/** A table's rows in rowid order, as JSON. */
function dump(file: string, table: string): string {
  const db = new Database(file, { readonly: true });
  try {
    return JSON.stringify(db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all());
  } finally {
    db.close();
  }
}

function sha(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** The app.noticed events a page hears: emitted at its first call, and not again at the next. */
async function noticesAtFirstCall(core: ConsoleCore): Promise<unknown[]> {
  const heard: unknown[] = [];
  const off = core.events.on('app.noticed', (n) => heard.push(n));
  await core.dispatch('app.info', undefined);
  const first = heard.length;
  await core.dispatch('app.info', undefined);
  off();
  expect(heard).toHaveLength(first);
  return heard;
}

/** A profile holding `n` durable notifications, closed. */
async function notificationsProfile(n: number): Promise<{ dir: string; file: string }> {
  const dir = tempDir();
  const store = await openEventStore({ dataDir: dir, events: new EventHub(), log: () => undefined });
  for (let i = 0; i < n; i++)
    await store.append(notification({ transaction_id: `tx-${i}` }), { durable: true });
  await store.close();
  return { dir, file: path.join(dir, 'console.db') };
}

/** A profile of N events whose WAL is checkpointed into the main file, then one leaf page of the events table overwritten. */
async function damagedProfile(): Promise<{ dir: string; file: string; ids: string[] }> {
  const dir = tempDir();
  const store = await openEventStore({ dataDir: dir, events: new EventHub() });
  const ids: string[] = [];
  for (let k = 0; k < N; k += 100) {
    const batch = await Promise.all(
      Array.from({ length: 100 }, (_, j) =>
        (k + j) % 2
          ? store.append(notification({ transaction_id: `tx-${k + j}` }), { durable: true })
          : store.append(callback({ obj: `o-${k + j}` })),
      ),
    );
    ids.push(...batch.map((s) => s.id));
  }
  await store.close();
  const file = path.join(dir, 'console.db');
  fillState(file);
  const leaves = leavesOf(file, 'events');
  expect(leaves.length).toBeGreaterThan(10);
  overwritePage(file, leaves[Math.floor(leaves.length / 2)]!);
  return { dir, file, ids };
}

describe('event store: a damaged database', () => {
  it('opens with a report naming the file, serves what it can read, and `store recover` keeps every readable event and the damaged file', async () => {
    const { dir, file, ids } = await damagedProfile();
    const logs: string[] = [];
    const store = await openEventStore({ dataDir: dir, events: new EventHub(), log: (l) => logs.push(l) });
    const readable: string[] = [];
    try {
      expect((await store.integrity()).length).toBeGreaterThan(0);
      expect(store.health()).toMatchObject({ state: 'damaged', file });
      expect(logs.join('\n')).toContain(file);
      // The report says what to do about it.
      expect(logs.join('\n')).toContain('dets-console store recover');
      for await (const e of store.scan()) readable.push(e.id);
      // One page lost: most events are still served, in order.
      expect(readable.length).toBeGreaterThan(N * 0.8);
      expect(readable.length).toBeLessThan(N);
      expect([...readable].sort()).toEqual(readable);
      expect(readable.every((id) => ids.includes(id))).toBe(true);
      // A new notification can still be stored (its page is not the damaged one).
      await store.append(notification({ transaction_id: 'after-damage' }), { durable: true });
      readable.push((await store.query({ transaction_id: 'after-damage' })).events[0]!.id);
    } finally {
      await store.close();
    }

    // `events` lists what it can read and names the damaged file on stderr.
    const listed = await runBuiltCli(['events', '--data-dir', dir, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(readable.length);
    expect(listed.stderr).toContain(file);
    expect(listed.stderr).toContain('dets-console store recover');

    const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`Recovered ${readable.length} events`));
    expect(r.stderr).toMatch(/damaged/);
    const kept = fs
      .readdirSync(dir)
      .filter((f) => f.startsWith('console.db.damaged-') && !/-(wal|shm)$/.test(f));
    expect(kept).toHaveLength(1);
    // The damaged file is kept, damaged page included (never deleted, never rewritten).
    expect(fs.readFileSync(path.join(dir, kept[0]!)).includes(Buffer.alloc(4096, 0xa5))).toBe(true);

    // Everything else the profile held came along: the sandbox, the walkthrough, the histories, meta.
    for (const table of STATE_TABLES)
      if (table === 'meta') expect(dump(file, table)).toContain('"test-marker","value":"kept"');
      else expect(dump(file, table), table).toBe(dump(path.join(dir, kept[0]!), table));
    expect(r.stdout).toMatch(/rows of the profile's other tables \(.*sandbox_keys 1/);
    // A deleted trace's number is not given again.
    expect(dump(file, 'sqlite_sequence')).toContain('"name":"sandbox_traces","seq":10');

    const fresh = await openEventStore({ dataDir: dir, events: new EventHub(), log: () => undefined });
    try {
      expect(await fresh.integrity()).toEqual([]);
      expect(fresh.health().state).toBe('ok');
      const after: string[] = [];
      for await (const e of fresh.scan()) after.push(e.id);
      expect(after).toEqual(readable);
      expect(fresh.hasTransaction('AFTER-DAMAGE')).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  it('`store recover` leaves a sound database as it is and says so', async () => {
    const { dir, file } = await notificationsProfile(50);
    fillState(file);
    leavesOf(file, 'events'); // the WAL checkpointed: every row in the main file
    const hash = sha(file);
    const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /is sound: .*all 50 events and \d+ rows of the profile's other tables.*Nothing was changed/,
    );
    // No copy kept or left behind, and the file is as it was, byte for byte.
    expect(fs.readdirSync(dir).filter((f) => /damaged|recovering/.test(f))).toEqual([]);
    expect(sha(file)).toBe(hash);
  });

  it('`store recover` copies what is readable of a damaged state table and names it', async () => {
    const { dir, file } = await notificationsProfile(20);
    const n = 3000;
    fillState(file, n);
    const original = JSON.parse(dump(file, 'sandbox_counterparties')) as { guid: string }[];
    const leaves = leavesOf(file, 'sandbox_counterparties');
    expect(leaves.length).toBeGreaterThan(10);
    overwritePage(file, leaves[Math.floor(leaves.length / 2)]!);

    const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Recovered 20 events and/);
    expect(r.stderr).toMatch(/unreadable: sandbox_counterparties: .*unreadable rows/);
    const after = JSON.parse(dump(file, 'sandbox_counterparties')) as { guid: string }[];
    // One page lost: the rest are there, each as it was.
    expect(after.length).toBeGreaterThan(n * 0.8);
    expect(after.length).toBeLessThan(n);
    const byGuid = new Map(original.map((row) => [row.guid, JSON.stringify(row)]));
    expect(after.every((row) => byGuid.get(row.guid) === JSON.stringify(row))).toBe(true);
    // The other tables came whole.
    const kept = fs.readdirSync(dir).find((f) => /^console\.db\.damaged-[^.]*Z$/.test(f))!;
    for (const table of ['sandbox_keys', 'sandbox_traces', 'walkthrough_progress', 'signed_pairs'])
      expect(dump(file, table), table).toBe(dump(path.join(dir, kept), table));
  });

  it('`store recover` finds a record quick_check cannot see (its JSON broken) and copies the rest', async () => {
    const { dir, file } = await notificationsProfile(30);
    fillState(file);
    const db = new Database(file);
    db.prepare("UPDATE events SET record = '{not json' WHERE seq = 7").run();
    db.close();
    const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    // Reported once (by the copy), not again by the first, read-only pass.
    expect(r.stderr.match(/unreadable: the record of row 7 is not an event/g)).toHaveLength(1);
    expect(r.stdout).toMatch(/^Recovered 29 events and \d+ rows of the profile's other tables/);
    const kept = fs.readdirSync(dir).find((f) => /^console\.db\.damaged-[^.]*Z$/.test(f))!;
    for (const table of STATE_TABLES.filter((t) => t !== 'meta'))
      expect(dump(file, table), table).toBe(dump(path.join(dir, kept), table));
    const listed = await runBuiltCli(['events', '--data-dir', dir, '--json']);
    expect(listed.stdout.trim().split('\n')).toHaveLength(29);
    expect(listed.stderr).toBe('');
  });

  it('`store recover` dying as it swaps the files leaves the profile a database (kill -9 between its steps)', async () => {
    const { dir, file } = await damagedProfile();
    const damaged = sha(file);
    // Death at the last step: everything before it done, the fresh file not yet renamed in.
    const real = fs.renameSync.bind(fs);
    const rename = vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      if (String(from).endsWith('.recovering')) throw new Error('killed');
      real(from, to);
    });
    try {
      await expect(recoverDatabase(dir)).rejects.toThrow('killed');
    } finally {
      rename.mockRestore();
    }
    // The profile still has its database, as it was, and the kept copy already has its name.
    expect(sha(file)).toBe(damaged);
    const kept = fs.readdirSync(dir).filter((f) => /^console\.db\.damaged-[^.]*Z$/.test(f));
    expect(kept).toHaveLength(1);
    expect(sha(path.join(dir, kept[0]!))).toBe(damaged);
    // A failed recovery leaves no half-made copy behind, and the next one completes.
    expect(fs.readdirSync(dir).filter((f) => f.includes('recovering'))).toEqual([]);
    const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Recovered \d+ events/);
  });

  it('`store recover` sets aside a file nothing can be read from, so the profile starts afresh', async () => {
    const { dir, file } = await notificationsProfile(10);
    leavesOf(file, 'events'); // the WAL checkpointed
    // Every byte replaced: no header to rebuild, no page that holds an event.
    fs.writeFileSync(file, Buffer.alloc(fs.statSync(file).size, 0x5a));
    const hash = sha(file);
    const before = await runBuiltCli(['events', '--data-dir', dir]);
    expect(before.code).toBe(1);
    expect(before.stderr).toContain(file);

    const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(
      /^Nothing could be read from .*console\.db\. It is kept as .*console\.db\.damaged-.*a fresh, empty database takes its place/,
    );
    expect(r.stderr).toMatch(/unreadable: the database as SQLite reads it: .*(not a database|malformed)/);
    expect(r.stderr).not.toContain('store recover` copies');
    const kept = fs.readdirSync(dir).filter((f) => /^console\.db\.damaged-[^.]*Z$/.test(f));
    expect(kept).toHaveLength(1);
    expect(sha(path.join(dir, kept[0]!))).toBe(hash);
    const after = await runBuiltCli(['events', '--data-dir', dir]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain('No events stored.');
  });

  it('`store recover` changes nothing in a database of a newer version', async () => {
    const { dir, file } = await notificationsProfile(5);
    const db = new Database(file);
    db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (999, ?)').run(
      new Date().toISOString(),
    );
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const hash = sha(file);
    const r = await runBuiltCli(['store', 'recover', '--data-dir', dir]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/newer/i);
    expect(fs.readdirSync(dir).filter((f) => /damaged|recovering/.test(f))).toEqual([]);
    expect(sha(file)).toBe(hash);
  });

  it('a recovery asked for from the UI runs at the next start of the app or serve, not of a CLI command', async () => {
    const { dir, file } = await damagedProfile();
    const request = path.join(dir, RECOVERY_REQUEST);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      let core = await createConsoleCore({ dataDir: dir, host: 'browser' });
      // quick_check runs at open on its own thread: the header learns of the damage from it.
      await vi.waitFor(
        async () =>
          expect(await core.dispatch('events.health', undefined)).toMatchObject({
            ok: true,
            value: { state: 'damaged' },
          }),
        { timeout: 20_000, interval: 50 },
      );
      const asked = await core.dispatch('events.requestRecovery', undefined);
      expect(asked).toMatchObject({ ok: true, value: { requested_at: expect.any(String) } });
      expect(fs.existsSync(request)).toBe(true);
      await core.close();
      const damaged = sha(file);

      // A one-shot CLI command leaves it for the app or serve.
      core = await createConsoleCore({ dataDir: dir, host: 'cli' });
      await core.close();
      expect(fs.existsSync(request)).toBe(true);
      expect(sha(file)).toBe(damaged);

      core = await createConsoleCore({ dataDir: dir, host: 'browser' });
      try {
        expect(fs.existsSync(request)).toBe(false);
        // The page hears of it at its first call, once (rows were lost with the page: a warning).
        const heard = await noticesAtFirstCall(core);
        expect(heard).toEqual([
          expect.objectContaining({
            level: 'warning',
            message: expect.stringMatching(/^Recovery at start: Recovered \d+ events .*unreadable part/),
          }),
        ]);
        const kept = fs.readdirSync(dir).filter((f) => /^console\.db\.damaged-[^.]*Z$/.test(f));
        expect(kept).toHaveLength(1);
        expect(sha(path.join(dir, kept[0]!))).toBe(damaged);
        expect(await core.dispatch('events.health', undefined)).toMatchObject({
          ok: true,
          value: { state: 'ok' },
        });
        const page = (await core.dispatch('events.query', { limit: 10_000 })) as {
          value: { total: number };
        };
        expect(page.value.total).toBeGreaterThan(N * 0.8);
        expect(page.value.total).toBeLessThan(N);
        for (const table of STATE_TABLES.filter((t) => t !== 'meta'))
          expect(dump(file, table), table).toBe(dump(path.join(dir, kept[0]!), table));
      } finally {
        await core.close();
      }
      const logged = errors.mock.calls.map((c) => String(c[0])).join('\n');
      expect(logged).toContain('running the recovery asked for');
      expect(logged).toMatch(/Recovered \d+ events and \d+ rows/);
    } finally {
      errors.mockRestore();
    }
  });

  it('a recovery asked for waits while another process has the profile open', async () => {
    const { dir, file } = await notificationsProfile(5);
    const request = path.join(dir, RECOVERY_REQUEST);
    fs.writeFileSync(request, '{"requested_at":"2026-11-24T00:00:00.000Z"}\n');
    // An owner's claim (owner.ts), held here: a core that is no owner itself cannot recover.
    const owner = await claimProfile(dir, 'sandbox');
    const hash = sha(file);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const core = await createConsoleCore({ dataDir: dir, host: 'browser' });
      const heard = await noticesAtFirstCall(core);
      await core.close();
      expect(heard).toEqual([
        expect.objectContaining({
          level: 'warning',
          message: expect.stringMatching(new RegExp(`did not run: .*pid ${process.pid}`)),
        }),
      ]);
      expect(errors.mock.calls.map((c) => String(c[0])).join('\n')).toMatch(
        new RegExp(`did not run: .*sandbox \\(pid ${process.pid}.*It runs at the next start`),
      );
    } finally {
      errors.mockRestore();
      owner.release();
    }
    expect(fs.existsSync(request)).toBe(true);
    expect(sha(file)).toBe(hash);
  });

  it('a recovery request that is not a file (a folder by that name) is no request, and the console starts', async () => {
    const { dir, file } = await notificationsProfile(3);
    fs.mkdirSync(path.join(dir, RECOVERY_REQUEST));
    const hash = sha(file);
    const core = await createConsoleCore({ dataDir: dir, host: 'browser' });
    const heard = await noticesAtFirstCall(core);
    await core.close();
    expect(heard).toEqual([]);
    expect(fs.readdirSync(dir).filter((f) => /damaged|recovering/.test(f))).toEqual([]);
    expect(sha(file)).toBe(hash);
  });

  it('`store` without its subcommand, or with another, is a usage error naming it', async () => {
    const none = await runBuiltCli(['store']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^dets-console store: a subcommand is needed; use: store recover/);
    const other = await runBuiltCli(['store', 'repair']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^dets-console store: "repair" is not a subcommand; use: store recover/);
  });

  it('`store recover` on a profile without a database says so', async () => {
    const r = await runBuiltCli(['store', 'recover', '--data-dir', tempDir()]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/no database at .*console\.db/);
  });
});
