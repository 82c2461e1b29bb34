/**
 * Interleaved rounds: warm every target up, then measure A, B, C, A, B, C, ... so drift of the
 * machine (thermal, other tenants, GC of the load generator) spreads over all targets alike.
 * Each run is bounded by count and by a hard time cap; the count of a round is calibrated from
 * the target's warm-up so every round is about `roundSeconds` long whatever the target's speed.
 */
import { BenchBroken } from './errors';
import { runLoad, type LoadResult, type LoadTarget } from './load';
import { amountFor, isClean, summarizeTarget, type RoundStats, type TargetSummary } from './stats';

export interface RoundPlan {
  connections: number;
  /** Measured rounds per target. */
  rounds: number;
  /** Aimed length of a measured round. */
  roundSeconds: number;
  /** Length of the warm-up (also its hard cap). */
  warmupSeconds: number;
  /** Bounds of a round's request count. */
  minAmount: number;
  maxAmount: number;
  /** Hard cap of a round = roundSeconds × capFactor + 2 s. */
  capFactor: number;
}

export interface TargetRun {
  id: string;
  title: string;
  warmup: RoundStats;
  /** Requests per measured round. */
  amount: number;
  rounds: RoundStats[];
  summary: TargetSummary;
}

export interface InterleaveHooks {
  /** Called before each run; throw to abort (e.g. a server child died). */
  beforeRun?: (target: LoadTarget, phase: 'warmup' | 'round', round: number) => void;
  /** The target's server CPU time so far (µs), for CPU per request; null when unknown. */
  cpuMicros?: (target: LoadTarget) => Promise<number | null>;
  log?: (line: string) => void;
}

/** After a round, before reading the server's CPU: its deferred work (event writes) lands in the round. */
const SETTLE_MS = 100;

/**
 * Runs `run` and adds the server's CPU µs per response over it (read before, and SETTLE_MS
 * after, so work the server deferred past its answers counts), when `cpuMicros` reports it.
 */
export async function withCpu<R extends RoundStats>(
  cpuMicros: (() => Promise<number | null>) | undefined,
  run: () => Promise<R>,
): Promise<R> {
  const before = cpuMicros ? await cpuMicros() : null;
  const r = await run();
  if (!cpuMicros || before === null) return r;
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const after = await cpuMicros();
  if (after === null || r.responses === 0) return r;
  return { ...r, cpuPerRequestUs: (after - before) / r.responses };
}

function stats(r: LoadResult): RoundStats {
  const { latencies: _l, statusCodes: _s, ...rest } = r;
  return rest;
}

function assertClean(target: LoadTarget, r: LoadResult, phase: string): void {
  if (isClean(r)) return;
  const codes = Object.entries(r.statusCodes)
    .map(([c, n]) => `${c}×${n}`)
    .join(', ');
  throw new BenchBroken(
    `${target.id} ${phase}: ${r.non2xx} non-2xx, ${r.errors} errors (${r.timeouts} timeouts), ${r.mismatches} bad bodies ` +
      `of ${r.responses} responses [${codes}]: the figures would not measure the real work`,
  );
}

/** Warm-up then `plan.rounds` interleaved rounds over `targets`; throws BenchBroken on any failed response. */
export async function runInterleaved(
  targets: readonly LoadTarget[],
  plan: RoundPlan,
  hooks: InterleaveHooks = {},
): Promise<TargetRun[]> {
  const log = hooks.log ?? (() => {});
  const runs = new Map<
    string,
    { target: LoadTarget; warmup: RoundStats; amount: number; rounds: RoundStats[]; latencies: number[] }
  >();

  for (const target of targets) {
    hooks.beforeRun?.(target, 'warmup', 0);
    const w = await runLoad(target, {
      connections: plan.connections,
      amount: plan.maxAmount,
      maxSeconds: plan.warmupSeconds,
    });
    assertClean(target, w, 'warm-up');
    const amount = amountFor(w.rps, plan.roundSeconds, {
      min: plan.minAmount,
      max: plan.maxAmount,
      connections: plan.connections,
    });
    log(
      `  warm-up ${target.id.padEnd(14)} ${w.responses} req in ${(w.elapsedMs / 1000).toFixed(1)} s → ${amount} req/round`,
    );
    runs.set(target.id, { target, warmup: stats(w), amount, rounds: [], latencies: [] });
  }

  const maxSeconds = plan.roundSeconds * plan.capFactor + 2;
  for (let round = 1; round <= plan.rounds; round++) {
    const parts: string[] = [];
    for (const target of targets) {
      const run = runs.get(target.id)!;
      hooks.beforeRun?.(target, 'round', round);
      const cpu = hooks.cpuMicros;
      const r = await withCpu(cpu && (() => cpu(target)), () =>
        runLoad(target, { connections: plan.connections, amount: run.amount, maxSeconds }),
      );
      assertClean(target, r, `round ${round}`);
      run.rounds.push(stats(r));
      for (const l of r.latencies) run.latencies.push(l);
      const cpuNote = r.cpuPerRequestUs === undefined ? '' : ` ${Math.round(r.cpuPerRequestUs)} µs/req`;
      parts.push(`${target.id} ${Math.round(r.rps)}/s${cpuNote}${r.capped ? ' (time cap)' : ''}`);
    }
    log(`  round ${round}/${plan.rounds}: ${parts.join(', ')}`);
  }

  return targets.map((t) => {
    const run = runs.get(t.id)!;
    return {
      id: t.id,
      title: t.title,
      warmup: run.warmup,
      amount: run.amount,
      rounds: run.rounds,
      summary: summarizeTarget(run.rounds, run.latencies),
    };
  });
}
