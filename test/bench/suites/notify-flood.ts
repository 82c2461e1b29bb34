/**
 * Issue 24's flood scenario in the notify suite: durable notifications at a fixed 200/s while
 * 16 connections send /user_auth callbacks with a bad signature (the service's real kid, a
 * random signature) and 15 KB of junk headers, for BENCH_FLOOD_SECONDS (30 s). Issue 24 saw the
 * notifications' p99 go from 151 ms to 14.2 s and the database grow by 16.6 KB a flood request;
 * DESIGN.md "Storage" wants such requests kept as compact records (about a kilobyte), so that
 * they "cannot slow the acknowledgement of notifications".
 *
 * Parts: a service JWKS child (servers/jwks.ts) with a fresh RSA key, a bank child
 * (servers/bank.ts, the real core, a fresh data directory) pinned like the suite's other servers,
 * the notifications paced by lib/paced.ts (latency from when each is due), the flood from this
 * process on its own keep-alive connections. Bounded: the flood stops at its time or at
 * FLOOD_MAX requests, the notifications at their count or their time cap, every wait has a limit.
 *
 * Printed: the notifications' p99 (target < 250 ms), acknowledged-but-missing (target 0, read
 * back through openEventStore after the bank stopped), the bank's CPU per flood request, and the
 * database's growth per flood request: its pages in use (WAL included, through a read-only
 * connection) before and after, less what the acknowledged notifications took at the rate a
 * notification alone takes, measured first (BASELINE notifications before the flood). Past the
 * refused cap (50,000) the store trims the oldest refused records, so a long flood's growth per
 * request shrinks: the rows kept are printed too.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'libsql';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { startChild, type ChildServer } from '../lib/children';
import { countDurable, formatDurability, type DurabilityCount } from '../lib/durability';
import type { LoadResult } from '../lib/load';
import { runPaced } from '../lib/paced';
import type { ProfileSummary } from '../lib/profile';
import { profilesOf } from '../lib/profiles';
import { makeRsaKey } from '../lib/rs256';
import { atMost, below, finite, offServersCore, reportChecks } from '../lib/steps';
import type { SpotCheck, SuiteContext } from '../lib/suite';
import type { TargetVerdict } from '../lib/stats';

export const FLOOD_TARGET_ID = 'notify-flood';
const RATE = 200;
const FLOOD_CONNECTIONS = 16;
/** A bound on the flood's count whatever the machine (about 10,000/s for 30 s at most). */
const FLOOD_MAX = 300_000;
/** Notifications sent alone first, to weigh one notification's row. */
const BASELINE = 400;
const PATH = '/api/svc/notify/pay-in';

export interface FloodResult {
  verdicts: TargetVerdict[];
  /** The bank child's profile, when BENCH_PROFILE names notify-flood. */
  profiles: ProfileSummary[];
  checks: SpotCheck[];
  notes: string[];
  figures: Record<string, number | string | null>;
}

/** Runs a read-only query on the profile's database (beside the bank that writes it). */
function readDb<T>(dataDir: string, read: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'console.db'), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Pages in use × page size of the profile's database, its WAL included. */
function databaseBytes(dataDir: string): number {
  return readDb(dataDir, (db) => {
    const one = (pragma: string) =>
      Number((db.prepare(`PRAGMA ${pragma}`).get() as Record<string, number>)[pragma]);
    return (one('page_count') - one('freelist_count')) * one('page_size');
  });
}

function rowsOf(dataDir: string, cls: string): number {
  return readDb(dataDir, (db) =>
    Number((db.prepare('SELECT count(*) AS n FROM events WHERE class = ?').get(cls) as { n: number }).n),
  );
}

/** Waits until the rows of a class stop growing (the bank appends callback events after answering). */
async function settledRows(dataDir: string, cls: string): Promise<number> {
  let last = -1;
  for (let i = 0; i < 240; i++) {
    const n = rowsOf(dataDir, cls);
    if (n === last && n > 0) return n;
    last = n;
    await new Promise((r) => setTimeout(r, 250));
  }
  return last;
}

/** One GET /user_auth on `agent`; status 0 when the request failed. */
function get(
  agent: http.Agent,
  base: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const req = http.request(
      { agent, host: url.hostname, port: url.port, path: '/user_auth', headers, timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', () => resolve({ status: 0, body: '' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end();
  });
}

/** A flood request's headers: the service's kid, a random signature, 15,030 bytes of junk. */
function floodRequests(kid: string): () => Record<string, string> {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    flow: 'sign-in',
    obj: 'DE89370400440532013000',
    sub: 'ops@bank.example',
    iat: now,
    exp: now + 3600,
  };
  const signingInput = `${b64({ alg: 'RS256', kid, typ: 'JWT' })}.${b64(claims)}.`;
  // Ten junk headers of 1,490 characters each, from a small pool (random bytes cost the generator).
  const junk = Array.from({ length: 32 }, () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 10; i++) headers[`x-junk-${i}`] = randomBytes(745).toString('hex');
    return headers;
  });
  let k = 0;
  return () => ({
    'X-Session-ID': signingInput + randomBytes(256).toString('base64url'),
    ...junk[k++ % junk.length],
  });
}

/** Durable notifications at RATE/s, `amount` of them; every id answered 200 goes to `acknowledged`. */
function notifications(url: string, amount: number, acknowledged: string[]): Promise<LoadResult> {
  return runPaced(
    {
      id: FLOOD_TARGET_ID,
      title: `durable notifications at ${RATE}/s`,
      url,
      nextRequest: () => {
        const tx = randomUUID();
        const body = `{"transaction_id":"${tx}"}`;
        return { method: 'POST', path: PATH, headers: { 'content-type': 'application/json' }, body, tag: tx };
      },
      verifyBody: (b) => b === '',
      onResponse: (status, tag) => {
        if (status === 200 && tag) acknowledged.push(tag);
      },
    },
    { rate: RATE, amount, connections: 32, maxSeconds: amount / RATE + 15 },
  );
}

/** The flood on FLOOD_CONNECTIONS connections for `seconds`; the statuses it got and how long it took. */
async function flood(url: string, next: () => Record<string, string>, seconds: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: FLOOD_CONNECTIONS });
  const statuses = new Map<number, number>();
  const start = performance.now();
  const end = start + seconds * 1000;
  let sent = 0;
  try {
    await Promise.all(
      Array.from({ length: FLOOD_CONNECTIONS }, async () => {
        while (performance.now() < end && sent < FLOOD_MAX) {
          sent += 1;
          const r = await get(agent, url, next());
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return {
    statuses,
    ms: performance.now() - start,
    responses: [...statuses.values()].reduce((a, b) => a + b, 0),
  };
}

/** Stops the bank (its core flushes the store) and compares what was acknowledged with what is stored. */
async function durabilityAfter(
  bank: ChildServer,
  dataDir: string,
  acknowledged: string[],
): Promise<DurabilityCount> {
  await bank.stop(20_000);
  const ids = new Set<string>();
  const store = await openEventStore({ dataDir, events: new EventHub() });
  try {
    for await (const e of store.scan({ kind: 'notification' })) {
      if (e.transaction_id && (e.outcome === 'accepted' || e.outcome === 'repeat')) ids.add(e.transaction_id);
    }
  } finally {
    await store.close();
  }
  return countDurable(acknowledged, ids);
}

/** Runs the flood scenario; `cpu` is the CPU the suite's servers are on (null: not pinned). */
export async function runNotifyFlood(ctx: SuiteContext, cpu: number | null): Promise<FloodResult> {
  const seconds = ctx.config.floodSeconds;
  const service = await makeRsaKey(randomUUID());
  const dataDir = await ctx.tmpDir('dets-bench-flood-');
  const jwks = await startChild({
    id: 'flood-jwks',
    args: [join(ctx.buildDir, 'servers/jwks.mjs')],
    env: { BENCH_JWKS: JSON.stringify({ keys: [service.jwk] }) },
  });
  const bank = await startChild({
    id: FLOOD_TARGET_ID,
    ...(cpu === null ? {} : { cpu }),
    args: [...ctx.nodeFlags(FLOOD_TARGET_ID), join(ctx.buildDir, 'servers/bank.mjs'), dataDir],
    cwd: ctx.root,
    env: { DETS_DATA_DIR: dataDir, BENCH_SERVICE_JWKS_URL: String(jwks.ready.jwks_url) },
  }).catch(async (err: unknown) => {
    await jwks.stop();
    throw err;
  });
  try {
    const next = floodRequests(service.kid);
    // Spot check: a flood request is a 401 `signature` (the kid is the service's, the headers fit).
    const one = new http.Agent();
    const probe = await get(one, bank.url, next()).finally(() => one.destroy());
    const checks: SpotCheck[] = [
      {
        id: 'notify-flood.bad-signature',
        ok: probe.status === 401 && probe.body.includes('"check":"signature"'),
        detail: `${probe.status} ${probe.body.slice(0, 160)}`,
      },
    ];
    reportChecks(ctx, checks);

    // What one notification's row takes, alone.
    const acknowledged: string[] = [];
    await settledRows(dataDir, 'refused');
    const size0 = databaseBytes(dataDir);
    const alone = await offServersCore(cpu, () => notifications(bank.url, BASELINE, acknowledged));
    const perNotification = (databaseBytes(dataDir) - size0) / Math.max(1, acknowledged.length);

    const size1 = databaseBytes(dataDir);
    const ackedBefore = acknowledged.length;
    const cpu0 = await bank.cpuMicros();
    const [paced, f] = await offServersCore(cpu, () =>
      Promise.all([notifications(bank.url, RATE * seconds, acknowledged), flood(bank.url, next, seconds)]),
    );
    const kept = await settledRows(dataDir, 'refused');
    const cpu1 = await bank.cpuMicros();
    const grown = databaseBytes(dataDir) - size1;
    const floodBytes = grown - (acknowledged.length - ackedBefore) * perNotification;
    const durability = await durabilityAfter(bank, dataDir, acknowledged);
    checks.push({
      id: 'notify-flood.durable',
      ok: durability.missing === 0,
      detail: formatDurability(durability),
    });
    const cpuUs = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null;
    const measured = { alone, paced, flood: f, durability, grown, floodBytes, perNotification, kept };
    return {
      ...report(ctx, { ...measured, cpu: cpuUs, checks }),
      profiles: profilesOf(ctx, [FLOOD_TARGET_ID], () => 'bank'),
    };
  } finally {
    await bank.stop(20_000);
    await jwks.stop();
  }
}

interface Measured {
  /** The BASELINE notifications, alone. */
  alone: LoadResult;
  paced: LoadResult;
  flood: Awaited<ReturnType<typeof flood>>;
  durability: DurabilityCount;
  grown: number;
  floodBytes: number;
  perNotification: number;
  kept: number;
  /** The bank's CPU over the flood (every thread), µs; null when it did not say. */
  cpu: number | null;
  checks: SpotCheck[];
}

function report(ctx: SuiteContext, m: Measured): Omit<FloodResult, 'profiles'> {
  const n = m.flood.responses;
  const perRequest = n > 0 ? m.floodBytes / n : null;
  const cpuPer = m.cpu !== null && n > 0 ? m.cpu / (n + m.paced.responses) : null;
  const p99 = finite(m.paced.latencyMs.p99);
  const statusText = [...m.flood.statuses].map(([s, c]) => `${s}: ${c}`).join(', ');
  const lines = [
    `flood: ${n} bad-signature callbacks with 15 KB headers on ${FLOOD_CONNECTIONS} connections in ${(m.flood.ms / 1000).toFixed(1)} s (${((n * 1000) / m.flood.ms).toFixed(0)}/s; ${statusText}); bank CPU ${cpuPer === null ? '?' : cpuPer.toFixed(0)} µs per request (flood and notifications, every thread)`,
    `notifications beside it: ${m.paced.responses} answered at ${RATE}/s, p50 ${m.paced.latencyMs.p50.toFixed(1)} ms, p99 ${m.paced.latencyMs.p99.toFixed(1)} ms, max ${m.paced.latencyMs.max.toFixed(1)} ms (alone, just before: p50 ${m.alone.latencyMs.p50.toFixed(1)} ms, p99 ${m.alone.latencyMs.p99.toFixed(1)} ms); ${formatDurability(m.durability)}`,
    `database: grew ${(m.grown / 1024 / 1024).toFixed(2)} MiB in all; less the notifications' rows (${m.perNotification.toFixed(0)} bytes each, measured alone first), ${perRequest === null ? '?' : perRequest.toFixed(0)} bytes per flood request; ${m.kept} refused records kept (cap 50,000)`,
  ];
  for (const line of lines) ctx.log(`  ${line}`);
  return {
    checks: m.checks,
    notes: lines,
    verdicts: [
      below(
        'notify_flood_p99',
        `durable notification p99 at ${RATE}/s while ${FLOOD_CONNECTIONS} connections flood bad-signature callbacks with 15 KB headers`,
        p99,
        250,
      ),
      below(
        'notify_flood_missing',
        'acknowledged notifications missing after the flood',
        m.durability.missing,
        1,
        'missing',
      ),
      atMost('notify_flood_db_bytes', 'database growth per flood request', perRequest, 2048, 'B'),
    ],
    figures: {
      flood_requests: n,
      flood_seconds: Number((m.flood.ms / 1000).toFixed(1)),
      flood_statuses: statusText,
      flood_cpu_us_per_request: cpuPer === null ? null : Math.round(cpuPer),
      flood_notify_alone_p99_ms: finite(m.alone.latencyMs.p99),
      flood_notify_p50_ms: Number(m.paced.latencyMs.p50.toFixed(2)),
      flood_notify_p99_ms: p99 === null ? null : Number(p99.toFixed(2)),
      flood_notify_acknowledged: m.durability.acknowledged,
      flood_notify_missing: m.durability.missing,
      flood_db_growth_bytes: m.grown,
      flood_db_bytes_per_notification: Math.round(m.perNotification),
      flood_db_bytes_per_request: perRequest === null ? null : Math.round(perRequest),
      flood_refused_rows: m.kept,
    },
  };
}
