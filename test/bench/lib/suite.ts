/**
 * What a bench suite is: given the context, it starts its server children, checks they answer
 * correctly, runs interleaved rounds and returns its figures, ratios and target verdicts. main.ts
 * runs the suites in order and writes their results together; a later issue adds a suite by adding
 * a file under test/bench/suites and one line in main.ts.
 */
import type { BenchConfig } from './config';
import type { ProfileSummary } from './profile';
import type { TargetRun } from './rounds';
import type { TargetVerdict } from './stats';

export interface SuiteContext {
  config: BenchConfig;
  /** The repository root. */
  root: string;
  /** Where scripts/bench.mjs put the bundles: bench.mjs, servers/<name>.mjs. */
  buildDir: string;
  /** .bench/: scratch space kept between runs (profiles). */
  workDir: string;
  /** A fresh temporary directory, removed when the bench ends. */
  tmpDir(prefix: string): Promise<string>;
  /** Whether a target id is selected by BENCH_TARGETS. */
  wants(targetId: string): boolean;
  /** Node flags to start a target's child with (--cpu-prof when BENCH_PROFILE names it). */
  nodeFlags(targetId: string): string[];
  /** Where that child's profile lands once it has exited, or null when it is not profiled. */
  profileFile(targetId: string): string | null;
  log(line: string): void;
}

/** A correctness check made before (or after) the load; a failed one breaks the bench. */
export interface SpotCheck {
  id: string;
  ok: boolean;
  detail: string;
}

export interface SuiteResult {
  id: string;
  title: string;
  targets: TargetRun[];
  /** Throughput ratios, e.g. sandbox_vs_crypto_floor; null when not measured. */
  ratios: Record<string, number | null>;
  verdicts: TargetVerdict[];
  checks: SpotCheck[];
  notes: string[];
  profiles: ProfileSummary[];
  /** Other figures (counts, frame statistics), printed as `name: value` lines. */
  figures?: Record<string, number | string | null>;
}

export interface Suite {
  id: string;
  title: string;
  run(ctx: SuiteContext): Promise<SuiteResult>;
}
