/**
 * `dets-console events` (DESIGN.md "Command line"): the profile's stored events oldest first,
 * one JSON object per line with --json, a readable table without; --kind, --since, --search and
 * --limit filter and combine; --follow streams beside a running serve; bad usage exits 2 naming
 * the flag. It reads the store while a `serve` on the same profile appends to it.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseEventsFlags } from '../../electron/cli/commands/events';
import { EventHub } from '../../electron/core/event-hub';
import { blankEvent, openEventStore, type NewEvent } from '../../electron/core/store';
import {
  jsonLines,
  listEvents,
  notify,
  quietIo as io,
  runBuiltCli,
  runInProcess,
  spawnServe,
  type ServeChild,
} from './helpers';
import { spawnCli, type SpawnedCli } from './support/spawn-cli';

let tmp: string;
const running: ServeChild[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'dets-events-'));
});
afterEach(() => {
  for (const s of running.splice(0)) s.kill();
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true, maxRetries: 5 });
});

describe('dets-console events: usage', () => {
  it('accepts --kind notification|callback|exchange and --json', () => {
    for (const kind of ['notification', 'callback', 'exchange'] as const) {
      expect(parseEventsFlags(['--data-dir', tmp, '--kind', kind], io)).toEqual({
        dataDir: tmp,
        kind,
        json: false,
      });
    }
    expect(parseEventsFlags(['--json'], { ...io, env: { DETS_DATA_DIR: tmp } })).toEqual({
      dataDir: tmp,
      json: true,
    });
  });

  it.each([
    [['--kind', 'payment'], '--kind'],
    [['--kind'], '--kind'],
    [['--nope'], '--nope'],
    [['--data-dir', ''], '--data-dir'],
    [['extra'], 'extra'],
  ])('%j exits 2 with one line naming %s', async (args, flag) => {
    const r = await runBuiltCli(['events', '--data-dir', path.join(tmp, 'bad'), ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^dets-console events: /);
    expect(lines[0]).toContain(flag);
  });

  it('prints nothing with --json and says so in text on an empty profile', async () => {
    const dir = path.join(tmp, 'empty');
    const json = await runBuiltCli(['events', '--data-dir', dir, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe('');
    const text = await runBuiltCli(['events', '--data-dir', dir, '--kind', 'callback']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/No callback events stored/);
  });
});

function event(over: Partial<NewEvent>): NewEvent {
  return { ...blankEvent('notification', new Date().toISOString()), ...over };
}

/** Runs `dets-console events ARGS` in this process; resolves to exit code and output. */
const events = (args: string[]) => runInProcess(['events', ...args]);

describe('dets-console events on a stored profile', () => {
  const dir = () => path.join(tmp, 'stored');
  const tx = randomUUID();

  beforeAll(async () => {
    const store = await openEventStore({ dataDir: dir(), events: new EventHub() });
    const t0 = Date.parse('2026-01-02T10:00:00.000Z');
    const at = (s: number) => new Date(t0 + s * 1000).toISOString();
    await store.append(
      event({
        at: at(0),
        path: '/api/svc/notify/pay-in',
        method: 'POST',
        status: 200,
        outcome: 'accepted',
        transaction_id: tx,
        duration_ms: 3.2,
        remote: '127.0.0.1',
      }),
      { durable: true },
    );
    await store.append(
      event({
        at: at(1),
        kind: 'callback',
        path: '/user_auth',
        method: 'GET',
        status: 401,
        failed_check: 'obj',
        obj: 'DE02120300000000202051',
        sub: 'ops@bank.example',
        duration_ms: 12,
      }),
    );
    await store.append(
      event({
        at: at(2),
        kind: 'callback',
        path: '/key',
        method: 'GET',
        status: 200,
        obj: 'DE89370400440532013000',
      }),
    );
    await store.append(
      event({ at: at(3), kind: 'exchange', path: 'http://127.0.0.1:9/api/v1/x', data: { a: 1 } }),
    );
    await store.close();
  });

  it('--json: one summary per line, oldest first, with every summary field', async () => {
    const r = await events(['--data-dir', dir(), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines.map((e) => e.kind)).toEqual(['notification', 'callback', 'callback', 'exchange']);
    expect(Object.keys(lines[0]!).slice(0, 3)).toEqual(['id', 'at', 'kind']);
    expect(lines[0]).toEqual({
      id: expect.any(String),
      at: '2026-01-02T10:00:00.000Z',
      kind: 'notification',
      path: '/api/svc/notify/pay-in',
      method: 'POST',
      status: 200,
      outcome: 'accepted',
      transaction_id: tx,
      failed_check: null,
      obj: null,
      sub: null,
      duration_ms: 3.2,
      warning: null,
      remote: '127.0.0.1',
    });
    expect(lines[1]).toMatchObject({ path: '/user_auth', status: 401, failed_check: 'obj' });
    expect(lines[2]).toMatchObject({ path: '/key', status: 200, failed_check: null });
    // Summaries only: no request bodies, tokens or free-form data on the line.
    expect(lines[3]).not.toHaveProperty('data');
  });

  it('--kind filters', async () => {
    const r = await events(['--data-dir', dir(), '--kind', 'callback', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).map((e) => e.path)).toEqual(['/user_auth', '/key']);
    const x = await events(['--data-dir', dir(), '--kind', 'exchange', '--json']);
    expect(jsonLines(x.stdout)).toHaveLength(1);
  });

  it('prints a readable table without --json', async () => {
    const r = await events(['--data-dir', dir()]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TIME\s+KIND\s+ROUTE\s+STATUS\s+FAILED CHECK\s+TRANSACTION \/ OBJ\s+DURATION$/);
    expect(lines[1]).toMatch(
      /^2026-01-02T10:00:00\.000Z\s+notification\s+POST \/api\/svc\/notify\/pay-in\s+200 accepted\s+-\s+\S+\s+3\.2 ms$/,
    );
    expect(lines[1]).toContain(tx);
    expect(lines[2]).toMatch(/callback\s+GET \/user_auth\s+401\s+obj\s+DE02120300000000202051\s+12 ms$/);
    expect(lines[3]).toMatch(/callback\s+GET \/key\s+200\s+passed\s+DE89370400440532013000\s+-$/);
    expect(r.stdout).toMatch(/4 events, oldest first\.\n$/);
  });

  it('exits 2 naming --kind for a kind it does not know', async () => {
    const r = await events(['--data-dir', dir(), '--kind', 'trace']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^dets-console events: --kind: "trace" is not one of notification, callback, exchange, audit, route\n$/,
    );
  });
});

describe('dets-console events beside a running serve on the same profile', () => {
  it('lists notifications and callbacks oldest first with DESIGN.md fields, filtered by --kind', async () => {
    const dir = path.join(tmp, 'live');
    const s = spawnServe(['--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox', '--data-dir', dir]);
    running.push(s);
    const { bank } = await s.ready;
    const first = randomUUID();
    const second = randomUUID();
    expect((await notify(bank, 'pay-in', JSON.stringify({ transaction_id: first }))).status).toBe(200);
    expect((await notify(bank, 'pay-out', JSON.stringify({ transaction_id: second }))).status).toBe(200);
    expect((await notify(bank, 'pay-in', JSON.stringify({ transaction_id: first }))).status).toBe(200);
    expect((await notify(bank, 'transfer', '{"transaction_id": 42}')).status).toBe(400);
    expect((await fetch(`${bank}/user_auth`)).status).toBe(401);
    expect((await fetch(`${bank}/key`, { headers: { 'X-Session-ID': 'not-a-jws' } })).status).toBe(401);

    // serve is still running: events reads what it has appended.
    const events = await listEvents(dir);
    for (const e of events) {
      expect(e).toMatchObject({ id: expect.any(String), at: expect.any(String), kind: expect.any(String) });
      expect(new Date(String(e.at)).toISOString()).toBe(e.at);
    }
    const ats = events.map((e) => Date.parse(String(e.at)));
    expect([...ats].sort((a, b) => a - b)).toEqual(ats);

    const notifications = events.filter((e) => e.kind === 'notification');
    expect(notifications).toEqual([
      expect.objectContaining({
        path: '/api/svc/notify/pay-in',
        transaction_id: first,
        outcome: 'accepted',
        status: 200,
      }),
      expect.objectContaining({
        path: '/api/svc/notify/pay-out',
        transaction_id: second,
        outcome: 'accepted',
      }),
      expect.objectContaining({ path: '/api/svc/notify/pay-in', transaction_id: first, outcome: 'repeat' }),
      expect.objectContaining({ path: '/api/svc/notify/transfer', outcome: 'rejected', status: 400 }),
    ]);
    const callbacks = events.filter((e) => e.kind === 'callback');
    expect(callbacks).toEqual([
      expect.objectContaining({ path: '/user_auth', status: 401, failed_check: 'present' }),
      expect.objectContaining({ path: '/key', status: 401, failed_check: 'structure' }),
    ]);
    for (const c of callbacks) expect(c).toHaveProperty('failed_check');

    expect(await listEvents(dir, '--kind', 'callback')).toEqual(callbacks);

    const table = await runBuiltCli(['events', '--data-dir', dir, '--kind', 'notification']);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(/^TIME\s+KIND\s+ROUTE\s+STATUS\s+FAILED CHECK\s+TRANSACTION \/ OBJ\s+DURATION$/);
    expect(table.stdout).toContain(first);
    expect(table.stdout).toMatch(/200 repeat/);
    expect(table.stdout).toMatch(/400 rejected/);
    expect(table.stdout).toMatch(/4 events, oldest first/);

    expect((await s.stop()).code).toBe(0);
  });
});

describe('dets-console events --since, --search, --limit (DESIGN.md "Command line")', () => {
  const dir = () => path.join(tmp, 'filters');
  const now = Date.now();
  const ago = (ms: number) => new Date(now - ms).toISOString();
  const ids = { old: randomUUID(), mid: randomUUID(), fresh: randomUUID() };

  beforeAll(async () => {
    const store = await openEventStore({ dataDir: dir(), events: new EventHub() });
    const n = (at: string, transaction_id: string, body: string) =>
      event({
        at,
        path: '/api/svc/notify/pay-in',
        status: 200,
        outcome: 'accepted',
        transaction_id,
        request: { method: 'POST', headers: {}, body },
      });
    await store.append(n(ago(3 * 86_400_000), ids.old, '{"memo":"Quarterly SETTLEMENT"}'), { durable: true });
    await store.append(n(ago(3 * 3_600_000), ids.mid, '{"memo":"refund"}'), { durable: true });
    await store.append(
      event({
        at: ago(90 * 60_000),
        kind: 'callback',
        path: '/user_auth',
        status: 401,
        failed_check: 'kid',
        obj: 'Settlement-Bank',
      }),
    );
    await store.append(n(ago(60_000), ids.fresh, '{"memo":"settlement again"}'), { durable: true });
    await store.close();
  });

  const txs = (events: Array<Record<string, unknown>>) => events.map((e) => e.transaction_id ?? e.obj);

  it('--since takes a duration or an ISO time', async () => {
    expect(txs(await listEvents(dir(), '--since', '2h'))).toEqual(['Settlement-Bank', ids.fresh]);
    expect(txs(await listEvents(dir(), '--since', '4h'))).toEqual([ids.mid, 'Settlement-Bank', ids.fresh]);
    expect(txs(await listEvents(dir(), '--since', ago(2 * 86_400_000)))).toHaveLength(3);
    expect(txs(await listEvents(dir(), '--since', '7d'))).toHaveLength(4);
  });

  it('--search matches path, transaction_id, obj, check and bodies, in any case', async () => {
    expect(txs(await listEvents(dir(), '--search', 'settlement'))).toEqual([
      ids.old,
      'Settlement-Bank',
      ids.fresh,
    ]);
    expect(txs(await listEvents(dir(), '--search', 'REFUND'))).toEqual([ids.mid]);
    expect(txs(await listEvents(dir(), '--search', ids.old.slice(4, 16).toUpperCase()))).toEqual([ids.old]);
    expect(txs(await listEvents(dir(), '--search', 'user_auth'))).toEqual(['Settlement-Bank']);
    expect(await listEvents(dir(), '--search', 'no such text')).toEqual([]);
  });

  it('--limit keeps the newest N, printed oldest first; the filters combine', async () => {
    expect(txs(await listEvents(dir(), '--limit', '2'))).toEqual(['Settlement-Bank', ids.fresh]);
    expect(txs(await listEvents(dir(), '--limit', '10'))).toHaveLength(4);
    expect(
      txs(await listEvents(dir(), '--kind', 'notification', '--search', 'settlement', '--limit', '1')),
    ).toEqual([ids.fresh]);
    expect(txs(await listEvents(dir(), '--kind', 'notification', '--since', '1d', '--limit', '5'))).toEqual([
      ids.mid,
      ids.fresh,
    ]);
  });

  it.each([
    [['--since', 'yesterday'], '--since'],
    [['--since', '5w'], '--since'],
    [['--limit', '0'], '--limit'],
    [['--limit', 'ten'], '--limit'],
    [['--search', ''], '--search'],
  ])('%j exits 2 naming %s', async (args, flag) => {
    const r = await events(['--data-dir', dir(), ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(flag);
  });
});

describe('dets-console events --follow beside a running serve', () => {
  const children = new Set<ChildProcess>();
  afterEach(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    children.clear();
  });

  it('prints what is stored, then each new event as serve stores it, until SIGTERM (exit 0); filters apply', async () => {
    const dir = path.join(tmp, 'follow');
    const s = spawnServe(['--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox', '--data-dir', dir]);
    running.push(s);
    const { bank } = await s.ready;
    const before = randomUUID();
    expect((await notify(bank, 'pay-in', JSON.stringify({ transaction_id: before }))).status).toBe(200);

    const all = spawnCli(['events', '--data-dir', dir, '--json', '--follow'], children);
    const onlyNotifications = spawnCli(
      ['events', '--data-dir', dir, '--json', '--follow', '--kind', 'notification', '--search', 'pay-out'],
      children,
    );
    const lines = (run: SpawnedCli) => jsonLines(run.stdout);
    const until = async (run: SpawnedCli, pred: (l: Array<Record<string, unknown>>) => boolean) => {
      for (let i = 0; i < 300 && !pred(lines(run)); i++) await new Promise((r) => setTimeout(r, 20));
      return lines(run);
    };
    expect((await until(all, (l) => l.length >= 1))[0]).toMatchObject({ transaction_id: before });

    const later = randomUUID();
    expect((await notify(bank, 'pay-out', JSON.stringify({ transaction_id: later }))).status).toBe(200);
    expect((await fetch(`${bank}/user_auth`)).status).toBe(401);
    const followed = await until(all, (l) => l.length >= 3);
    expect(followed.map((e) => e.transaction_id ?? e.path)).toEqual([before, later, '/user_auth']);
    expect((await until(onlyNotifications, (l) => l.length >= 1)).map((e) => e.transaction_id)).toEqual([
      later,
    ]);

    expect(await all.stop('SIGTERM')).toMatchObject({ code: 0 });
    expect(await onlyNotifications.stop('SIGINT')).toMatchObject({ code: 0 });
    expect(lines(onlyNotifications)).toHaveLength(1);
    expect((await s.stop()).code).toBe(0);
  });
});
