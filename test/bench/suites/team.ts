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
    for (let r = 0; r < rounds; r++) {
      store.push(perSecond(await child(script, ['store', url, String(rows), String(WRITERS)])));
      base.push(perSecond(await child(script, ['baseline', url, String(rows), String(WRITERS)])));
      const both = await Promise.all([
        child(script, ['store', url, String(rows), String(WRITERS)]),
        child(script, ['store', url, String(rows), String(WRITERS)]),
      ]);
      two.push(both.reduce((s, b) => s + perSecond(b), 0));
      ctx.log(
        `team: round ${r + 1}: store ${store[r]!.toFixed(0)}/s, baseline ${base[r]!.toFixed(0)}/s, two hubs ${two[r]!.toFixed(0)}/s`,
      );
    }
    const [s, b, t] = [median(store), median(base), median(two)];
    const ratios = { store_vs_pg_baseline: s / b, two_hubs_vs_one: t / s };
    return {
      ratios,
      figures: {
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
      notes: [`${rows} rows per run, ${WRITERS} concurrent writers, median of ${rounds} interleaved rounds`],
    };
  } finally {
    await pgc.stop();
  }
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
