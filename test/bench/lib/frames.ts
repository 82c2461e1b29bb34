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

/** A stretch of a page's main thread busy without a break (a long task, seen in a CPU profile). */
export interface BusyRun {
  /** Start, ms after the profile started. */
  atMs: number;
  ms: number;
  /** The functions most present in the run's samples (inclusive: on the stack), heaviest first. */
  top: Array<{ name: string; ms: number }>;
}

interface ProfileLike {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(['(idle)', '(root)']);

/**
 * The runs of consecutive busy samples (anything but idle) of at least `minMs` in a V8 CPU profile
 * of a page (CDP Profiler), each with the functions that were on the stack longest: where a long
 * task spent its time. "(program)" is the browser's own work (style, layout, paint), "(garbage
 * collector)" GC.
 */
export function busyRuns(profile: ProfileLike, minMs = 50, top = 8): BusyRun[] {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (id: number) => {
    const f = byId.get(id)!.callFrame;
    const file = f.url ? f.url.slice(f.url.lastIndexOf('/') + 1) : '';
    return file ? `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}` : f.functionName;
  };
  const runs: BusyRun[] = [];
  let t = 0;
  let start = -1;
  let weights = new Map<string, number>();
  const close = (end: number) => {
    if (start >= 0 && end - start >= minMs)
      runs.push({
        atMs: start,
        ms: end - start,
        top: [...weights.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, top)
          .map(([n, ms]) => ({ name: n, ms: Math.round(ms * 10) / 10 })),
      });
    start = -1;
    weights = new Map();
  };
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const id = profile.samples[i]!;
    if (IDLE.has(byId.get(id)?.callFrame.functionName ?? '(idle)')) {
      close(t);
    } else {
      if (start < 0) start = t;
      const seen = new Set<string>();
      for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
        const nm = name(n);
        if (IDLE.has(nm) || seen.has(nm)) continue;
        seen.add(nm);
        weights.set(nm, (weights.get(nm) ?? 0) + dt);
      }
    }
    t += dt;
  }
  close(t);
  return runs;
}
