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

/** How often a server's CPU is read while it settles after a round. */
const SETTLE_MS = 100;
/** A server that used less CPU than this over one SETTLE_MS has settled (2% of a core). */
const QUIET_US = 2000;
/** The longest wait for a server to settle; what it still does after that is left uncounted. */
const MAX_SETTLE_MS = 20_000;

/**
 * Runs `run` and adds the server's CPU µs per response over it, when `cpuMicros` reports it.
 * The CPU is read before, and again once the server has settled: work it deferred past its
 * answers (event writes, the store's idle full-text indexing and checkpoints) is charged to the
 * round that caused it, and the next target's round starts on a quiet core instead of sharing
 * it with this one's leftovers (all targets are pinned to the same CPU).
 */
export async function withCpu<R extends RoundStats>(
  cpuMicros: (() => Promise<number | null>) | undefined,
  run: () => Promise<R>,
): Promise<R> {
  const before = cpuMicros ? await cpuMicros() : null;
  const r = await run();
  if (!cpuMicros || before === null) return r;
  let after: number | null = null;
  for (let waited = 0; waited < MAX_SETTLE_MS; waited += SETTLE_MS) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const now = await cpuMicros();
    if (now === null) break;
    const settled = after !== null && now - after < QUIET_US;
    after = now;
    if (settled) break;
  }
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
    // withCpu for its settling: the next warm-up must not share the core with this one's leftovers.
    const cpu = hooks.cpuMicros;
    const w = await withCpu(cpu && (() => cpu(target)), () =>
      runLoad(target, {
        connections: plan.connections,
        amount: plan.maxAmount,
        maxSeconds: plan.warmupSeconds,
      }),
    );
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
