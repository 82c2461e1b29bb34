/**
 * Issue 12: a year of history opens at once and can be searched. The suite builds a profile of
 * BENCH_STORE_EVENTS events (default a million, at most a million) and times the built CLI on it:
 *
 *   serve    `dets-console serve --json --data-dir DIR --ui-port 0 --bank-port 0 --sandbox-port 0`
 *            from spawn to its ready line (target ≤ 1.5 s), stopped by its PID each time
 *   search   `dets-console events --data-dir DIR --search TEXT --limit 20 --json`, wall time, for
 *            a TEXT a few events carry and one most callbacks carry (target < 1 s each)
 *
 * each the median of BENCH_STORE_RUNS runs (default 3). The profile is built fast but honestly:
 * the store opens the database once (schema and migrations), then the rows go in directly
 * through libsql in big transactions, each made by records.ts toRow (the writer's row: indexed
 * columns, the capped record, the search text) and inserted with the writer's own statements
 * (writer.ts INSERT_EVENT_SQL, INSERT_TEXT_SQL), class_stats and meta.high_seq as the writer
 * keeps them. Three events in four are acknowledged notifications (kept for ever), one in four
 * a judged /user_auth callback (under the callback class's cap), spread over a year.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventHub } from '../../../electron/core/event-hub';
import { blankEvent, formatEventId, openEventStore } from '../../../electron/core/store';
import { dbFile, type Database } from '../../../electron/core/store/db';
import { DEFAULT_MAX_RECORD_BYTES, toRow, type RetentionClass } from '../../../electron/core/store/records';
import { INSERT_EVENT_SQL, INSERT_TEXT_SQL } from '../../../electron/core/store/writer';
import type { EventDetail } from '../../../electron/contract/schemas/events';
import { startChild } from '../lib/children';
import { BenchBroken } from '../lib/errors';
import { median } from '../lib/stats';
import { atMost, below } from '../lib/steps';
import type { SpotCheck, Suite, SuiteResult } from '../lib/suite';

const SUITE_ID = 'store';
const SUITE_TITLE = 'Profile database: a year of events, serve ready and events --search (issue 12)';
/** Rows per build transaction. */
const BATCH = 50_000;
/** Events carrying the "few" search text, spread evenly over the profile. */
const NEEDLES = 5;
const SERVE_READY_MS = 30_000;
const EVENTS_TIMEOUT_MS = 60_000;

const YEAR_MS = 365 * 24 * 3600 * 1000;

/** Event `i` of `n`: notifications, and every fourth a judged /user_auth callback. */
function makeEvent(i: number, n: number, start: number, needle: string | null): EventDetail {
  const at = new Date(start + Math.floor((i * YEAR_MS) / n)).toISOString();
  const id = formatEventId(i + 1);
  if (i % 4 === 3) {
    const obj = needle ?? `cust-${(i * 7919) % 1000}`;
    return {
      ...blankEvent('callback', at),
      id,
      path: '/user_auth',
      method: 'GET',
      status: 200,
      obj,
      sub: `${obj}@bank.example`,
      duration_ms: 0.4,
      remote: '127.0.0.1',
      request: { method: 'GET', url: '/user_auth', headers: { 'x-session-id': '[masked]' }, body: null },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ obj, first_name: 'Ada', last_name: 'Lovelace', email: `${obj}@bank.example` }),
      },
      data: { verdict: { detail: null } },
    };
  }
  const tx = needle ? `${needle}-${randomUUID().slice(needle.length + 1)}` : randomUUID();
  return {
    ...blankEvent('notification', at),
    id,
    path: '/api/svc/notify/pay-in',
    method: 'POST',
    status: 200,
    outcome: 'accepted',
    transaction_id: tx,
    duration_ms: 2.1,
    remote: '127.0.0.1',
    request: {
      method: 'POST',
      url: '/api/svc/notify/pay-in',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ transaction_id: tx }),
    },
    response: { status: 200, headers: {}, body: '' },
  };
}

/**
 * Builds the profile in `dataDir`: `n` events, of which NEEDLES carry `needle`. Throws past
 * `maxSeconds`. Returns the build time, ms.
 */
async function buildProfile(
  root: string,
  dataDir: string,
  n: number,
  needle: string,
  maxSeconds: number,
  log: (line: string) => void,
): Promise<number> {
  const t0 = performance.now();
  // The store makes the database (schema, migrations) as any profile gets it; then it closes.
  await (await openEventStore({ dataDir, events: new EventHub() })).close();
  const Ctor = createRequire(join(root, 'package.json'))('libsql') as new (file: string) => Database;
  const db = new Ctor(dbFile(dataDir));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF'); // a build, not a commit anyone was promised
    const insert = db.prepare(INSERT_EVENT_SQL);
    const insertText = db.prepare(INSERT_TEXT_SQL);
    const stats = new Map<RetentionClass, { count: number; bytes: number }>();
    const start = Date.now() - YEAR_MS;
    const needleEvery = Math.floor(n / NEEDLES);
    for (let from = 0; from < n; from += BATCH) {
      if (performance.now() - t0 > maxSeconds * 1000)
        throw new BenchBroken(
          `store suite: building the profile took over ${maxSeconds} s (at ${from} of ${n})`,
        );
      db.exec('BEGIN');
      for (let i = from; i < Math.min(n, from + BATCH); i++) {
        const isNeedle = i % needleEvery === Math.floor(needleEvery / 2) && i / needleEvery < NEEDLES;
        const { row: r } = toRow(
          makeEvent(i, n, start, isNeedle ? needle : null),
          i + 1,
          DEFAULT_MAX_RECORD_BYTES,
        );
        const size = r.record.length;
        insert.run(
          r.seq,
          r.at,
          r.at_ms,
          r.kind,
          r.class,
          r.path,
          r.method,
          r.status,
          r.outcome,
          r.transaction_id,
          r.tx_lower,
          r.failed_check,
          r.obj,
          r.sub,
          r.duration_ms,
          r.warning,
          r.remote,
          size,
          r.record,
        );
        if (r.search) insertText.run(r.seq, r.search);
        const s = stats.get(r.class) ?? { count: 0, bytes: 0 };
        s.count += 1;
        s.bytes += size;
        stats.set(r.class, s);
      }
      const cs = db.prepare(
        `INSERT INTO class_stats (class, count, bytes) VALUES (?, ?, ?)
         ON CONFLICT (class) DO UPDATE SET count = excluded.count, bytes = excluded.bytes`,
      );
      for (const [cls, s] of stats) cs.run(cls, s.count, s.bytes);
      db.prepare(
        "INSERT INTO meta (key, value) VALUES ('high_seq', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ).run(String(Math.min(n, from + BATCH)));
      db.exec('COMMIT');
      if ((from / BATCH) % 4 === 3 || from + BATCH >= n)
        log(
          `  built ${Math.min(n, from + BATCH)} of ${n} events (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
        );
      await new Promise((r) => setImmediate(r)); // let a SIGINT in
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return performance.now() - t0;
}

/** Runs the built CLI to its end: wall time (ms) and stdout. */
function runCli(cli: string, args: string[]): Promise<{ ms: number; stdout: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { timeout: EVENTS_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const ms = performance.now() - t0;
        if (err)
          reject(
            new BenchBroken(`dets-console ${args.join(' ')}: ${err.message}\n${String(stderr).slice(-2000)}`),
          );
        else resolve({ ms, stdout: String(stdout) });
      },
    );
  });
}

export const storeSuite: Suite = {
  id: SUITE_ID,
  title: SUITE_TITLE,
  async run(ctx): Promise<SuiteResult> {
    const cfg = ctx.config;
    const cli = join(ctx.root, 'dist/cli/dets-console.js');
    if (!existsSync(cli))
      throw new BenchBroken(`store suite: ${cli} is missing; build it first (node scripts/build.mjs)`);
    const n = cfg.storeEvents;
    const dataDir = await ctx.tmpDir('dets-bench-store-');
    const needle = `needle${randomUUID().slice(0, 8)}`;
    ctx.log(`  building a profile of ${n} events in ${dataDir}`);
    const buildMs = await buildProfile(ctx.root, dataDir, n, needle, cfg.storeBuildSeconds, ctx.log);

    const checks: SpotCheck[] = [];
    // serve: spawn → ready line, stopped by its PID each time; on an empty profile too, for
    // what node, the bundle and three listeners cost before any event is read.
    const emptyDir = await ctx.tmpDir('dets-bench-store-empty-');
    const serveOnce = async (dir: string, label: string, run: number): Promise<number> => {
      const t0 = performance.now();
      const serve = await startChild({
        id: 'serve',
        args: [
          cli,
          'serve',
          '--json',
          '--data-dir',
          dir,
          '--ui-port',
          '0',
          '--bank-port',
          '0',
          '--sandbox-port',
          '0',
        ],
        readyTimeoutMs: SERVE_READY_MS,
        urlOf: (r) => r.bank,
      });
      const ms = performance.now() - t0;
      const exit = await serve.stop(20_000);
      ctx.log(
        `  serve (${label}) ${run}/${cfg.storeRuns}: ready in ${ms.toFixed(0)} ms (pid ${serve.pid}, exited ${exit.signal ?? `code ${exit.code}`})`,
      );
      if (exit.code !== 0)
        throw new BenchBroken(
          `store suite: serve did not stop cleanly (${exit.signal ?? `code ${exit.code}`})`,
        );
      return ms;
    };
    const serveMs: number[] = [];
    const emptyMs: number[] = [];
    for (let run = 1; run <= cfg.storeRuns; run++) {
      emptyMs.push(await serveOnce(emptyDir, 'empty profile', run));
      serveMs.push(await serveOnce(dataDir, `${n} events`, run));
    }
    checks.push({ id: 'serve.stops', ok: true, detail: 'exit 0 on SIGTERM every run' });

    // events --search: a text a few events carry, one most callbacks carry.
    const searches = [
      { id: 'few', text: needle, expect: NEEDLES },
      { id: 'many', text: 'user_auth', expect: 20 },
    ] as const;
    const searchMs = new Map<string, number[]>();
    for (const s of searches) {
      const times: number[] = [];
      for (let run = 1; run <= cfg.storeRuns; run++) {
        const r = await runCli(cli, [
          'events',
          '--data-dir',
          dataDir,
          '--search',
          s.text,
          '--limit',
          '20',
          '--json',
        ]);
        times.push(r.ms);
        const lines = r.stdout.split('\n').filter((l) => l.startsWith('{'));
        if (run === 1) {
          const ok = lines.length === Math.min(20, s.expect);
          checks.push({
            id: `events.search-${s.id}`,
            ok,
            detail: `--search ${s.text}: ${lines.length} events printed, expected ${Math.min(20, s.expect)}`,
          });
          if (!ok)
            throw new BenchBroken(
              `store suite: events --search ${s.text} printed ${lines.length} events, expected ${Math.min(20, s.expect)}`,
            );
        }
        ctx.log(
          `  events --search ${s.text} (${s.id}) ${run}/${cfg.storeRuns}: ${r.ms.toFixed(0)} ms, ${lines.length} events`,
        );
      }
      searchMs.set(s.id, times);
    }

    const serveMedian = median(serveMs);
    const fewMedian = median(searchMs.get('few')!);
    const manyMedian = median(searchMs.get('many')!);
    const verdicts = [
      atMost(
        'store_serve_ready',
        `serve ready on a profile of ${n} events (median of ${cfg.storeRuns})`,
        serveMedian,
        1500,
        'ms',
      ),
      below(
        'store_search_few',
        `events --search over ${n} events, a text ${NEEDLES} events carry (median of ${cfg.storeRuns})`,
        fewMedian,
        1000,
      ),
      below(
        'store_search_many',
        `events --search over ${n} events, a text a quarter of them carry (median of ${cfg.storeRuns})`,
        manyMedian,
        1000,
      ),
    ];
    return {
      id: SUITE_ID,
      title: SUITE_TITLE,
      targets: [],
      ratios: {},
      verdicts,
      checks,
      notes: [
        `profile: ${n} events over a year (3 in 4 acknowledged notifications, 1 in 4 judged /user_auth callbacks), rows made by records.ts toRow and inserted with the writer's statements; built in ${(buildMs / 1000).toFixed(1)} s.`,
        `serve timed from spawn to its --json ready line (UI, bank and sandbox listeners on port 0), stopped by SIGTERM to its PID; events timed from spawn to exit, --limit 20 --json.`,
        n < 1_000_000
          ? `${n} events, not the million issue 12 names (BENCH_STORE_EVENTS / BENCH_SCALE): the targets are judged on this smaller profile.`
          : 'a million events, as issue 12 names.',
      ],
      profiles: [],
      figures: {
        store_events: n,
        store_build_s: Number((buildMs / 1000).toFixed(1)),
        serve_ready_ms_runs: serveMs.map((m) => m.toFixed(0)).join(', '),
        serve_ready_ms_median: Number(serveMedian.toFixed(0)),
        serve_ready_empty_profile_ms_median: Number(median(emptyMs).toFixed(0)),
        search_few_ms_runs: searchMs
          .get('few')!
          .map((m) => m.toFixed(0))
          .join(', '),
        search_few_ms_median: Number(fewMedian.toFixed(0)),
        search_many_ms_runs: searchMs
          .get('many')!
          .map((m) => m.toFixed(0))
          .join(', '),
        search_many_ms_median: Number(manyMedian.toFixed(0)),
      },
    };
  },
};
