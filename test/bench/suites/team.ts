/**
 * Issue 30: the team hub's PostgreSQL store. On a PostgreSQL 15 cluster the suite starts
 * (test/support/postgres.ts, 127.0.0.1, stopped by its PID), in interleaved rounds:
 *
 *   store      durable notifications through the hub's event store (pg-store.ts): ROWS appends
 *              from 32 concurrent writers, each answered after its commit (servers/pg-writer.ts)
 *   baseline   the same rows by plain `pg`: batched INSERT + COMMIT of 32 rows at a time
 *   two hubs   two store processes at once on the same database (their rows/s summed)
 *
 * Targets: store ≥ 0.5× baseline; two hubs ≥ 1.6× one. Then a routed /user_auth through the hub
 * and an attached laptop (team-routed.ts): at most +5 ms p50 and +20 ms p99 over the backend.
 * BENCH_TARGETS=routed (or pg) runs one half only.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { startPostgres } from '../../support/postgres';
import { BenchBroken } from '../lib/errors';
import { whileBusy } from '../lib/machine-busy';
import { median } from '../lib/stats';
import { atLeast } from '../lib/steps';
import type { Suite, SuiteContext, SuiteResult } from '../lib/suite';
import { measureRouted, type RoutedResult } from './team-routed';

const SUITE_ID = 'team';
const SUITE_TITLE =
  'Team hub: durable notifications on PostgreSQL, against plain pg, two hubs, and a routed /user_auth (issue 30)';
const WRITERS = 32;

function child(script: string, args: string[]): Promise<{ rows: number; ms: number }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, ...args], { timeout: 300_000 }, (err, stdout, stderr) => {
      if (err)
        reject(new BenchBroken(`pg-writer ${args[0]}: ${err.message}\n${String(stderr).slice(-1000)}`));
      else resolve(JSON.parse(String(stdout).trim().split('\n').at(-1)!) as { rows: number; ms: number });
    });
  });
}

const perSecond = (r: { rows: number; ms: number }) => (r.rows * 1000) / r.ms;

/** The PostgreSQL half: store, plain pg baseline and two hubs, in interleaved rounds. */
async function measurePg(
  ctx: SuiteContext,
  rounds: number,
): Promise<RoutedResult & { ratios: Record<string, number> }> {
  const rows = Number(process.env.BENCH_TEAM_ROWS ?? 4000);
  const script = join(ctx.buildDir, 'servers', 'pg-writer.mjs');
  const pgc = await startPostgres();
  try {
    const url = await pgc.database('bench');
    // Warm-up: the store makes the schema and the connections are made once.
    await child(script, ['store', url, '200', String(WRITERS)]);
    const store: number[] = [];
    const base: number[] = [];
    const two: number[] = [];
    const busyOne: number[] = [];
    const busyTwo: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const one = await whileBusy(() => child(script, ['store', url, String(rows), String(WRITERS)]));
      store.push(perSecond(one.result));
      base.push(perSecond(await child(script, ['baseline', url, String(rows), String(WRITERS)])));
      const both = await whileBusy(() =>
        Promise.all([
          child(script, ['store', url, String(rows), String(WRITERS)]),
          child(script, ['store', url, String(rows), String(WRITERS)]),
        ]),
      );
      two.push(both.result.reduce((sum, b) => sum + perSecond(b), 0));
      if (one.busy !== null && both.busy !== null) {
        busyOne.push(one.busy);
        busyTwo.push(both.busy);
      }
      const busyNote =
        one.busy !== null && both.busy !== null
          ? ` (machine CPUs busy ${(one.busy * 100).toFixed(0)}% / ${(both.busy * 100).toFixed(0)}%)`
          : '';
      ctx.log(
        `team: round ${r + 1}: store ${store[r]!.toFixed(0)}/s, baseline ${base[r]!.toFixed(0)}/s, two hubs ${two[r]!.toFixed(0)}/s${busyNote}`,
      );
    }
    const [s, b, t] = [median(store), median(base), median(two)];
    const ratios = { store_vs_pg_baseline: s / b, two_hubs_vs_one: t / s };
    return {
      ratios,
      figures: {
        ...(busyOne.length > 0
          ? {
              machine_busy_one_hub: Number(median(busyOne).toFixed(3)),
              machine_busy_two_hubs: Number(median(busyTwo).toFixed(3)),
            }
          : {}),
        store_rows_per_s: Math.round(s),
        baseline_rows_per_s: Math.round(b),
        two_hubs_rows_per_s: Math.round(t),
      },
      verdicts: [
        atLeast(
          'team.store_vs_baseline',
          'durable notifications on PostgreSQL vs plain pg batched INSERT + COMMIT',
          ratios.store_vs_pg_baseline,
          0.5,
        ),
        atLeast('team.two_hubs', 'two hubs on one database vs one hub', ratios.two_hubs_vs_one, 1.6),
      ],
      notes: [
        `${rows} rows per run, ${WRITERS} concurrent writers, median of ${rounds} interleaved rounds`,
        ...cpuBound(busyOne, busyTwo, t / s),
      ],
    };
  } finally {
    await pgc.stop();
  }
}

/**
 * Whether two hubs were bounded by the machine rather than the store: the database and both
 * hubs share this machine's CPUs, so two hubs can at most use what one left idle. The ceiling
 * is the two-hub figure scaled to every CPU busy (their CPU per row as measured).
 */
function cpuBound(busyOne: number[], busyTwo: number[], ratio: number): string[] {
  if (busyOne.length === 0) return [];
  const [one, two] = [median(busyOne), median(busyTwo)];
  const ceiling = ratio / two;
  return [
    `machine CPUs busy (every process, the database's too): one hub ${(one * 100).toFixed(0)}%, two hubs ${(two * 100).toFixed(0)}%; ` +
      `at every CPU busy two hubs would make ${ceiling.toFixed(2)}× one hub on this machine`,
  ];
}

export const teamSuite: Suite = {
  id: SUITE_ID,
  title: SUITE_TITLE,
  async run(ctx): Promise<SuiteResult> {
    const rounds = Math.max(1, ctx.config.rounds);
    const pg = ctx.wants('pg') ? await measurePg(ctx, rounds) : null;
    const routed = ctx.wants('routed') ? await measureRouted(ctx, rounds) : null;
    return {
      id: SUITE_ID,
      title: SUITE_TITLE,
      targets: [],
      ratios: pg?.ratios ?? {},
      verdicts: [...(pg?.verdicts ?? []), ...(routed?.verdicts ?? [])],
      checks: [],
      notes: [...(pg?.notes ?? []), ...(routed?.notes ?? [])],
      profiles: [],
      figures: { ...pg?.figures, ...routed?.figures },
    };
  },
};
