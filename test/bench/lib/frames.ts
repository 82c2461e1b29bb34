/** Frame statistics for the UI suite: pure, from the page's requestAnimationFrame deltas. */
import { percentile } from './stats';

export interface FrameSummary {
  frames: number;
  maxMs: number;
  p50Ms: number;
  p99Ms: number;
  /** Frames longer than the budget. */
  over: number;
  budgetMs: number;
}

/** Deltas between consecutive frame timestamps (ms); non-increasing pairs are dropped. */
export function frameDeltas(timestamps: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < timestamps.length; i++) {
    const d = timestamps[i]! - timestamps[i - 1]!;
    if (d > 0) out.push(d);
  }
  return out;
}

export function summarizeFrames(deltas: readonly number[], budgetMs = 50): FrameSummary {
  return {
    frames: deltas.length,
    maxMs: deltas.length ? Math.max(...deltas) : Number.NaN,
    p50Ms: percentile(deltas, 50),
    p99Ms: percentile(deltas, 99),
    over: deltas.filter((d) => d > budgetMs).length,
    budgetMs,
  };
}

/** Where step `step` of `steps` scrolls to: evenly from the top to the bottom (inclusive). */
export function scrollTarget(
  step: number,
  steps: number,
  scrollHeight: number,
  clientHeight: number,
): number {
  const range = Math.max(0, scrollHeight - clientHeight);
  return steps <= 0 ? range : Math.round((Math.min(step, steps) / steps) * range);
}
