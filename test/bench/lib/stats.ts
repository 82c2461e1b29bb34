/**
 * Pure numbers for the bench: percentiles, medians, summaries, ratios and targets. No I/O, no
 * clock, so harness.test.ts can pin every rule.
 */

/**
 * Nearest-rank percentile of `values` (need not be sorted): the smallest value such that at least
 * `p` percent of the values are less than or equal to it. p = 0 gives the minimum. NaN when empty.
 *
 * @example percentile([1, 2, 3, 4], 50) // 2
 */
export function percentile(values: readonly number[], p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return percentileOfSorted(sorted, p);
}

function percentileOfSorted(sorted: ArrayLike<number>, p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** The middle value (mean of the two middle values for an even count). NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Latency summary (milliseconds in, milliseconds out) over every sample. */
export function summarizeLatencies(samples: readonly number[]): LatencySummary {
  if (samples.length === 0) {
    return {
      count: 0,
      min: Number.NaN,
      mean: Number.NaN,
      p50: Number.NaN,
      p90: Number.NaN,
      p99: Number.NaN,
      max: Number.NaN,
    };
  }
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    min: sorted[0] as number,
    mean: sum / sorted.length,
    p50: percentileOfSorted(sorted, 50),
    p90: percentileOfSorted(sorted, 90),
    p99: percentileOfSorted(sorted, 99),
    max: sorted[sorted.length - 1] as number,
  };
}

/** What one measured round of one target produced (see load.ts). */
export interface RoundStats {
  /** Responses received (any status). */
  responses: number;
  ok2xx: number;
  non2xx: number;
  /** Connection errors and timeouts (autocannon counts timeouts as errors too). */
  errors: number;
  timeouts: number;
  /** Bodies the target's verifyBody refused. */
  mismatches: number;
  /** From the first request sent to the last response received. */
  elapsedMs: number;
  /** responses / elapsed seconds. */
  rps: number;
  /** The round hit its time cap before its count. */
  capped: boolean;
  latencyMs: LatencySummary;
  /**
   * The server's CPU time (user + system, every thread) over the round ÷ its responses, µs,
   * when the target's child reports it (lib/child-runtime.ts).
   */
  cpuPerRequestUs?: number;
}

export interface TargetSummary {
  rounds: number;
  /** Median over rounds of each round's throughput: the headline figure. */
  rps: number;
  rpsMin: number;
  rpsMax: number;
  /** Latency over every response of every measured round, pooled. */
  latencyMs: LatencySummary;
  /**
   * Median over rounds of each round's p50 and p99: like the throughput, robust to one round
   * disturbed by something else on the machine. The p99 target is judged on this one.
   */
  roundP50Ms: number;
  roundP99Ms: number;
  /** Median over rounds of the server's CPU µs per request; NaN when not measured. */
  cpuPerRequestUs: number;
  responses: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  cappedRounds: number;
}

/** Folds the measured rounds of one target: median throughput, pooled latency, summed failures. */
export function summarizeTarget(
  rounds: readonly RoundStats[],
  pooledLatencies: readonly number[],
): TargetSummary {
  const rps = rounds.map((r) => r.rps);
  const sum = (pick: (r: RoundStats) => number) => rounds.reduce((acc, r) => acc + pick(r), 0);
  return {
    rounds: rounds.length,
    rps: median(rps),
    rpsMin: rps.length ? Math.min(...rps) : Number.NaN,
    rpsMax: rps.length ? Math.max(...rps) : Number.NaN,
    latencyMs: summarizeLatencies(pooledLatencies),
    roundP50Ms: median(rounds.map((r) => r.latencyMs.p50)),
    roundP99Ms: median(rounds.map((r) => r.latencyMs.p99)),
    cpuPerRequestUs: median(
      rounds.flatMap((r) => (r.cpuPerRequestUs === undefined ? [] : [r.cpuPerRequestUs])),
    ),
    responses: sum((r) => r.responses),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    mismatches: sum((r) => r.mismatches),
    cappedRounds: rounds.filter((r) => r.capped).length,
  };
}

/** Every response was a verified 2xx: the figures mean something. */
export function isClean(s: Pick<TargetSummary, 'non2xx' | 'errors' | 'timeouts' | 'mismatches'>): boolean {
  return s.non2xx === 0 && s.errors === 0 && s.timeouts === 0 && s.mismatches === 0;
}

/**
 * Median over rounds of a's throughput ÷ b's in the same round: rounds run back to back, so
 * pairing them cancels slow drift of the machine. Null when no round pairs.
 */
export function pairedRatio(a: readonly RoundStats[], b: readonly RoundStats[]): number | null {
  const each = a.slice(0, b.length).flatMap((r, i) => {
    const q = ratio(r.rps, b[i]!.rps);
    return q === null ? [] : [q];
  });
  return each.length ? median(each) : null;
}

/** a / b, or null when either is not a positive finite number. */
export function ratio(a: number, b: number): number | null {
  if (!Number.isFinite(a) || !Number.isFinite(b) || a < 0 || b <= 0) return null;
  return a / b;
}

export interface TargetRule {
  id: string;
  title: string;
  /** The measured value (null: could not be measured, which misses the target). */
  value: number | null;
  op: '>=' | '<' | '<=';
  threshold: number;
  unit: string;
}

export interface TargetVerdict extends TargetRule {
  pass: boolean;
}

/** PASS/MISSED for one target rule. A value that could not be measured misses. */
export function judge(rule: TargetRule): TargetVerdict {
  const v = rule.value;
  const pass =
    v !== null &&
    Number.isFinite(v) &&
    (rule.op === '>=' ? v >= rule.threshold : rule.op === '<=' ? v <= rule.threshold : v < rule.threshold);
  return { ...rule, pass };
}

/**
 * Requests per round from a warm-up's throughput: about `seconds` of work, clamped to
 * [min, max], never below `connections` (autocannon refuses fewer requests than connections).
 */
export function amountFor(
  rps: number,
  seconds: number,
  limits: { min: number; max: number; connections: number },
): number {
  const wanted = Number.isFinite(rps) && rps > 0 ? Math.round(rps * seconds) : limits.min;
  return Math.max(limits.connections, Math.min(limits.max, Math.max(limits.min, wanted)));
}
