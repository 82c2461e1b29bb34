/**
 * The issue 5 bench suites' pure parts: customer fixtures and X-Session-ID claims, the /user_auth
 * body check, frame statistics, durability accounting, the seeded notification events, the new
 * settings; and one tiny real run that hands each response its request's tag. Counts only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventDetail } from '../../electron/contract/schemas/events';
import { readConfig } from './lib/config';
import {
  customerAt,
  makeCustomers,
  makeSessionTokens,
  sessionClaims,
  userBodyCheck,
  userDataOf,
} from './lib/customers';
import { countDurable, formatDurability } from './lib/durability';
import { busyRuns, frameDeltas, scrollTarget, summarizeFrames } from './lib/frames';
import { runLoad } from './lib/load';
import { formatFigure, formatVerdict } from './lib/report';
import { makeRsaKey, verifyJwtSync } from './lib/rs256';
import { judge } from './lib/stats';
import { seedEvent, uiEvent } from './suites/ui';

describe('customers and X-Session-ID tokens', () => {
  it('makes distinct customers with every field the --users format requires', () => {
    const cs = makeCustomers(1000);
    expect(new Set(cs.map((c) => c.obj)).size).toBe(1000);
    expect(new Set(cs.map((c) => c.sub)).size).toBe(1000);
    expect(new Set(cs.map((c) => c.external_id)).size).toBe(1000);
    for (const c of [cs[0]!, cs[1]!, cs[999]!]) {
      expect(c.external_id.length).toBeLessThanOrEqual(500);
      expect(c.phone).toMatch(/^\+\d+$/);
      expect(c.key.length).toBeGreaterThan(0);
    }
    expect(customerAt(0).obj).toMatch(/^UA\d{27}$/);
    expect(customerAt(1).obj).toMatch(/^\+380/);
    expect(userDataOf(customerAt(3))).toEqual({
      external_id: 'ext-0000003',
      first_name: 'First3',
      last_name: 'Last3',
      email: 'user-3@bank.example',
      phone: '+3806710000003',
      key: customerAt(3).key,
    });
  });

  it('gives each token its customer’s obj and sub, a 10-minute life, and distinct claims past one pass', () => {
    const cs = makeCustomers(10);
    const now = 1_800_000_000;
    const claims = Array.from({ length: 25 }, (_, i) => sessionClaims(i, cs, now));
    expect(claims[3]).toEqual({
      flow: 'sign-in',
      obj: cs[3]!.obj,
      sub: cs[3]!.sub,
      iat: now,
      exp: now + 600,
    });
    expect(claims[13]!.obj).toBe(cs[3]!.obj);
    expect(claims[13]!.iat).toBe(now - 1);
    expect(new Set(claims.map((c) => JSON.stringify(c))).size).toBe(25);
    for (const c of claims) expect(c.exp - c.iat).toBe(600);
  });

  it('signs RS256 tokens with the kid of the key', async () => {
    const key = await makeRsaKey('svc-1');
    const cs = makeCustomers(3);
    const tokens = await makeSessionTokens(key, cs, 4, 1_800_000_000);
    expect(new Set(tokens.map((t) => t.token)).size).toBe(4);
    const v = verifyJwtSync(tokens[3]!.token, key.publicKey);
    expect(v?.header).toMatchObject({ alg: 'RS256', kid: 'svc-1' });
    expect(v?.payload).toMatchObject({ obj: cs[0]!.obj, sub: cs[0]!.sub });
    expect(tokens[3]!.customer).toBe(0);
  });

  it('accepts only a body with one customer’s external_id, phone and key', () => {
    const cs = makeCustomers(5);
    const check = userBodyCheck(cs);
    expect(check(JSON.stringify(userDataOf(cs[2]!)))).toBe(true);
    expect(check(JSON.stringify({ ...userDataOf(cs[2]!), key: cs[3]!.key }))).toBe(false);
    expect(check(JSON.stringify({ external_id: 'ext-9999999', phone: 'x', key: 'y' }))).toBe(false);
    expect(check('not json')).toBe(false);
    expect(check('null')).toBe(false);
  });
});

describe('frame statistics', () => {
  it('turns timestamps into deltas and counts frames over the budget', () => {
    const deltas = frameDeltas([0, 16, 33, 33, 100, 116]);
    expect(deltas).toEqual([16, 17, 67, 16]);
    const s = summarizeFrames(deltas, 50);
    expect(s).toMatchObject({ frames: 4, maxMs: 67, p50Ms: 16, over: 1, budgetMs: 50 });
    expect(summarizeFrames([], 50).frames).toBe(0);
    expect(Number.isNaN(summarizeFrames([], 50).maxMs)).toBe(true);
  });

  it('scrolls evenly from top to bottom', () => {
    expect(scrollTarget(0, 200, 10_800, 800)).toBe(0);
    expect(scrollTarget(100, 200, 10_800, 800)).toBe(5_000);
    expect(scrollTarget(200, 200, 10_800, 800)).toBe(10_000);
    expect(scrollTarget(250, 200, 10_800, 800)).toBe(10_000);
    expect(scrollTarget(5, 10, 500, 800)).toBe(0);
  });
});

describe('busy stretches of a page profile', () => {
  it('finds runs of busy samples past the threshold and names what was on the stack', () => {
    const node = (id: number, functionName: string, children: number[] = []) => ({
      id,
      callFrame: {
        functionName,
        url: functionName.startsWith('(') ? '' : 'http://x/assets/app.js',
        lineNumber: 9,
      },
      children,
    });
    const profile = {
      nodes: [
        node(1, '(root)', [2, 3, 5]),
        node(2, '(idle)'),
        node(3, 'flush', [4]),
        node(4, 'render'),
        node(5, '(program)'),
      ],
      // 10 ms idle, 60 ms in render under flush, 5 ms program, 10 ms idle, 20 ms in flush.
      samples: [2, 4, 4, 4, 4, 4, 4, 5, 2, 3, 3],
      timeDeltas: [0, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 5_000, 10_000, 10_000, 10_000],
    };
    const runs = busyRuns(profile, 50);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ atMs: 10, ms: 65 });
    // render ran 60 ms, all of it inside flush: both were on the stack as long.
    expect(runs[0]!.top.slice(0, 2)).toEqual(
      expect.arrayContaining([
        { name: 'flush app.js:10', ms: 60 },
        { name: 'render app.js:10', ms: 60 },
      ]),
    );
    expect(busyRuns(profile, 10).map((r) => r.ms)).toEqual([65, 20]);
  });
});

describe('durability accounting', () => {
  it('finds acknowledged ids missing from the store', () => {
    const ok = countDurable(['a', 'b', 'b'], new Set(['a', 'b', 'c']));
    expect(ok).toEqual({ acknowledged: 2, stored: 3, missing: 0, missingSample: [] });
    expect(formatDurability(ok)).toBe('acknowledged 2, stored 3, missing 0');
    const bad = countDurable(['a', 'x'], new Set(['a']));
    expect(bad.missing).toBe(1);
    expect(formatDurability(bad)).toBe('acknowledged 2, stored 1, missing 1 (e.g. x)');
  });
});

describe('report and settings', () => {
  it('prints counts as integers and ratios with two decimals', () => {
    expect(formatFigure(3)).toBe('3');
    expect(formatFigure(1.234)).toBe('1.23');
    const missing = { id: 'm', title: 'missing', op: '<' as const, threshold: 1, unit: 'missing' };
    expect(formatVerdict(judge({ ...missing, value: 0 }))).toBe(
      'PASS    missing: 0 missing (target < 1 missing)',
    );
  });

  it('has defaults for the issue 5 suites and scales the fixed-rate run', () => {
    const c = readConfig({});
    expect(c).toMatchObject({
      customers: 1000,
      rate: 2000,
      rateSeconds: 4,
      rateRounds: 3,
      uiEvents: 100_000,
      uiSteps: 200,
      uiLoadSeconds: 5,
    });
    expect(c.chromium).toBe('/usr/bin/chromium');
    expect(readConfig({ BENCH_SCALE: '0.2' }).rateSeconds).toBe(1);
    expect(() => readConfig({ BENCH_RATE: '0' })).toThrow(/BENCH_RATE/);
  });
});

describe('seeded notification events', () => {
  it('are valid event records: accepted, repeats and rejected over the three routes', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const events = Array.from({ length: 200 }, (_, i) => seedEvent(i, 200, now));
    for (const e of events) expect(() => EventDetail.omit({ id: true }).parse(e)).not.toThrow();
    expect(new Set(events.map((e) => e.outcome))).toEqual(new Set(['accepted', 'repeat', 'rejected']));
    expect(new Set(events.map((e) => e.path)).size).toBe(3);
    expect(events[199]!.at).toBe('2025-12-31T23:59:59.000Z');
    expect(events.filter((e) => e.outcome === 'rejected').every((e) => e.transaction_id === null)).toBe(true);
  });
});

describe('the UI profile (issue 13 item 9)', () => {
  it('mixes notification outcomes and passed and failed callbacks, a second apart, with a few needles', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const n = 40_000;
    const needle = 'needleabc12345';
    const events = Array.from({ length: n }, (_, i) => uiEvent(i, n, now, needle));
    for (const e of [events[0]!, events[3]!, events[10]!, events[11]!, events[n - 1]!])
      expect(() => EventDetail.parse(e)).not.toThrow();
    expect(new Set(events.map((e) => e.id)).size).toBe(n);
    const callbacks = events.filter((e) => e.kind === 'callback');
    expect(callbacks.length).toBe(n / 4);
    expect(new Set(callbacks.map((e) => e.failed_check))).toEqual(new Set([null, 'exp']));
    expect(new Set(events.filter((e) => e.kind === 'notification').map((e) => e.outcome))).toEqual(
      new Set(['accepted', 'repeat', 'rejected']),
    );
    expect(events[n - 1]!.at).toBe('2025-12-31T23:59:59.000Z');
    const carriers = events.filter((e) => e.transaction_id?.startsWith(needle) || e.obj === needle);
    expect(carriers.map((e) => e.kind).sort()).toEqual([
      'callback',
      'callback',
      'notification',
      'notification',
    ]);
  });
});

describe('tags: each response is handed its own request’s tag', () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push(body);
      res.writeHead(body.endsWith('7') ? 202 : 200, { 'content-length': '0' });
      res.end();
    });
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('matches 300 requests at 4 connections to their answers', async () => {
    let n = 0;
    const answered = new Map<string, number>();
    const r = await runLoad(
      {
        id: 'tags',
        title: 'tags',
        url,
        nextRequest: () => {
          const tag = `tx-${n++}`;
          return { method: 'POST', path: '/', body: tag, tag };
        },
        onResponse: (status, tag) => answered.set(tag ?? 'none', status),
      },
      { connections: 4, amount: 300, maxSeconds: 30 },
    );
    expect(r.responses).toBe(300);
    expect(answered.size).toBe(300);
    expect(answered.has('none')).toBe(false);
    for (const [tag, status] of answered) {
      expect(seen).toContain(tag);
      expect(status).toBe(tag.endsWith('7') ? 202 : 200);
    }
  });
});
