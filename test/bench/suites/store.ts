/**
 * Issue 12: a year of history opens at once and can be searched. The suite builds a profile of
 * BENCH_STORE_EVENTS events (default a million, at most a million) and times the built CLI on it:
 *
 *   serve    `dets-console serve --json --data-dir DIR --ui-port 0 --bank-port 0 --sandbox-port 0`
 *            from spawn to its ready line (target ≤ 1.5 s), stopped by its PID each time
 *   search   `dets-console events --data-dir DIR --search TEXT --limit 20 --json`, wall time, for
 *            a TEXT a few events carry and one most callbacks carry (target < 1 s each)
 *   kind     `events --kind notification --limit 100 --json`: a page of the commonest kind, the
 *            newest 100 (sql.ts version 8; "the pages and events query through indexes": < 1 s)
 *   since    `events --since 1h --json`: the last hour of the year, a recent window (< 1 s)
 *
 * each the median of BENCH_STORE_RUNS runs (default 3). The profile is built fast but honestly:
 * the store opens the database once (schema and migrations), then the rows go in directly
 * through libsql in big transactions, each made by records.ts toRow (the writer's row: indexed
 * columns, the capped record, the search text) and inserted with the writer's statements
 * (store/sql.ts: the same columns and text tables, a row at a time; INSERT_TEXT_SQL puts an
 * indexed kind's text straight into the index, where the writer's idle indexing would have moved
 * it), class_stats and meta.high_seq as the writer keeps them. Three events in four are acknowledged notifications (kept for ever), one in four
 * a judged /user_auth callback (under the callback class's cap), spread over a year.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildProfile, yearEvent, YEAR_MS } from '../lib/build-profile';
import { startChild } from '../lib/children';
import { BenchBroken } from '../lib/errors';
import { median } from '../lib/stats';
import { atMost, below } from '../lib/steps';
import type { SpotCheck, Suite, SuiteResult } from '../lib/suite';

const SUITE_ID = 'store';
const SUITE_TITLE =
  'Profile database: a year of events, serve ready, events --search, a page of a kind, a recent window (issue 12)';
/** Events carrying the "few" search text, spread evenly over the profile. */
const NEEDLES = 5;
const SERVE_READY_MS = 30_000;
const EVENTS_TIMEOUT_MS = 60_000;

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
    const start = Date.now() - YEAR_MS;
    const needleEvery = Math.floor(n / NEEDLES);
    const isNeedle = (i: number) =>
      i % needleEvery === Math.floor(needleEvery / 2) && i / needleEvery < NEEDLES;
    const buildMs = await buildProfile({
      root: ctx.root,
      dataDir,
      n,
      eventAt: (i) => yearEvent(i, n, start, isNeedle(i) ? needle : null),
      maxSeconds: cfg.storeBuildSeconds,
      suite: SUITE_ID,
      log: ctx.log,
    });

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

    // events --search: a text a few events carry, one most callbacks carry; then a page of a
    // kind and a recent window. `expect` checks what each printed (a number, or at least one).
    const queries = [
      { id: 'few', args: ['--search', needle, '--limit', '20'], expect: Math.min(20, NEEDLES) },
      { id: 'many', args: ['--search', 'user_auth', '--limit', '20'], expect: 20 },
      { id: 'kind', args: ['--kind', 'notification', '--limit', '100'], expect: 100 },
      { id: 'since', args: ['--since', '1h'], expect: 'some' },
    ] as const;
    const searchMs = new Map<string, number[]>();
    for (const q of queries) {
      const times: number[] = [];
      const shown = q.args.join(' ');
      for (let run = 1; run <= cfg.storeRuns; run++) {
        const r = await runCli(cli, ['events', '--data-dir', dataDir, ...q.args, '--json']);
        times.push(r.ms);
        const lines = r.stdout.split('\n').filter((l) => l.startsWith('{'));
        if (run === 1) {
          const ok = q.expect === 'some' ? lines.length > 0 : lines.length === q.expect;
          const wanted = q.expect === 'some' ? 'at least one' : String(q.expect);
          checks.push({
            id: q.id === 'few' || q.id === 'many' ? `events.search-${q.id}` : `events.${q.id}`,
            ok,
            detail: `${shown}: ${lines.length} events printed, expected ${wanted}`,
          });
          if (!ok)
            throw new BenchBroken(
              `store suite: events ${shown} printed ${lines.length} events, expected ${wanted}`,
            );
        }
        ctx.log(
          `  events ${shown} (${q.id}) ${run}/${cfg.storeRuns}: ${r.ms.toFixed(0)} ms, ${lines.length} events`,
        );
      }
      searchMs.set(q.id, times);
    }

    const serveMedian = median(serveMs);
    const fewMedian = median(searchMs.get('few')!);
    const manyMedian = median(searchMs.get('many')!);
    const kindMedian = median(searchMs.get('kind')!);
    const sinceMedian = median(searchMs.get('since')!);
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
      below(
        'store_kind_page',
        `events --kind notification --limit 100 over ${n} events, the newest page of a kind (median of ${cfg.storeRuns})`,
        kindMedian,
        1000,
      ),
      below(
        'store_since_recent',
        `events --since 1h over ${n} events, a recent window (median of ${cfg.storeRuns})`,
        sinceMedian,
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
        `serve timed from spawn to its --json ready line (UI, bank and sandbox listeners on port 0), stopped by SIGTERM to its PID; events timed from spawn to exit with --json (the searches with --limit 20, the kind with --limit 100, the window unlimited).`,
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
        kind_page_ms_median: Number(kindMedian.toFixed(0)),
        since_recent_ms_median: Number(sinceMedian.toFixed(0)),
      },
    };
  },
};
