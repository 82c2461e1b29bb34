/**
 * Steps the load suites (sandbox, bank, notify) share: starting their server children, reporting
 * spot checks, the round plan from the settings, the children's liveness between runs, the
 * throughput figures their ratios are made of, and their verdicts.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { startChild, type ChildServer, type StartOptions } from './children';
import type { BenchConfig } from './config';
import { makeCustomers, type BenchCustomer } from './customers';
import { makeRsaKey, type RsaKey } from './rs256';
import { BenchBroken } from './errors';
import type { RoundPlan, TargetRun } from './rounds';
import { judge, pairedRatio, ratio, type TargetVerdict } from './stats';
import type { SpotCheck, SuiteContext } from './suite';

/** The targets of `order` that BENCH_TARGETS selects; none breaks the bench. */
export function selectTargets<Id extends string>(
  ctx: Pick<SuiteContext, 'wants'>,
  suiteId: string,
  order: readonly Id[],
): Id[] {
  const want = order.filter((id) => ctx.wants(id));
  if (want.length === 0)
    throw new BenchBroken(`${suiteId} suite: BENCH_TARGETS selects none of ${order.join(', ')}`);
  return want;
}

/**
 * Starts one child per id, all at once. The map holds them in the order they became ready (the
 * order the `servers:` line and per-server loops follow).
 */
export async function startServers<Id extends string>(
  ids: readonly Id[],
  optionsOf: (id: Id) => StartOptions | Promise<StartOptions>,
): Promise<Map<Id, ChildServer>> {
  const servers = new Map<Id, ChildServer>();
  await Promise.all(
    ids.map(async (id) => {
      servers.set(id, await startChild(await optionsOf(id)));
    }),
  );
  return servers;
}

/** `id pid N, id pid M`: the children, for the `servers:` line. */
export function describeServers(servers: Iterable<ChildServer>): string {
  return [...servers].map((s) => `${s.id} pid ${s.pid}`).join(', ');
}

/** Logs every check (`ok  ` or `FAIL`); throws BenchBroken naming the failed ones, if any. */
export function reportChecks(ctx: Pick<SuiteContext, 'log'>, checks: readonly SpotCheck[]): void {
  for (const c of checks) ctx.log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.id}: ${c.detail}`);
  const failed = checks.filter((c) => !c.ok);
  if (failed.length)
    throw new BenchBroken(`spot checks failed: ${failed.map((c) => `${c.id}: ${c.detail}`).join('; ')}`);
}

/** Adds `check` to `checks`; a failed one breaks the bench with `what: <detail>`. */
export function requireCheck(checks: SpotCheck[], check: SpotCheck, what: string): void {
  checks.push(check);
  if (!check.ok) throw new BenchBroken(`${what}: ${check.detail}`);
}

/** The interleaved-rounds plan of the settings. */
export function roundPlan(cfg: BenchConfig): RoundPlan {
  return {
    connections: cfg.connections,
    rounds: cfg.rounds,
    roundSeconds: cfg.roundSeconds,
    warmupSeconds: cfg.warmupSeconds,
    minAmount: cfg.minAmount,
    maxAmount: cfg.maxAmount,
    capFactor: cfg.capFactor,
  };
}

/** Throws BenchBroken (with its stderr) when the child of a target id has exited. */
export function aliveCheck(servers: ReadonlyMap<string, ChildServer>): (id: string) => void {
  return (id) => {
    const s = servers.get(id);
    if (s && !s.alive()) throw new BenchBroken(`${id} exited during the bench\n${s.stderrTail()}`);
  };
}

/** A figure that is finite, else null (not measured). */
export function finite(v: number | undefined): number | null {
  return v === undefined || !Number.isFinite(v) ? null : v;
}

/**
 * Lookups over the interleaved runs: a target's summary; `ratio(a, b)`, a's median req/s ÷ b's
 * (null when either was not run); `paired(a, b)`, the median of their round-by-round ratios.
 */
export function runFigures<Id extends string>(runs: readonly TargetRun[]) {
  const by = new Map(runs.map((r) => [r.id, r.summary]));
  const rps = (id: Id) => by.get(id)?.rps ?? Number.NaN;
  const roundsOf = (id: Id) => runs.find((r) => r.id === id)?.rounds ?? [];
  return {
    by,
    ratio: (a: Id, b: Id) => ratio(rps(a), rps(b)),
    paired: (a: Id, b: Id) => pairedRatio(roundsOf(a), roundsOf(b)),
  };
}

/** The notes' opening: connections, rounds per target and the warm-up. */
export function roundsNote(cfg: BenchConfig): string {
  return `${cfg.connections} connections, ${cfg.rounds} interleaved rounds of ~${cfg.roundSeconds} s per target after a ${cfg.warmupSeconds} s warm-up`;
}

/** The verdict of a rule `value ≥ threshold×` (a throughput ratio). */
export function atLeast(id: string, title: string, value: number | null, threshold: number): TargetVerdict {
  return judge({ id, title, value, op: '>=', threshold, unit: '×' });
}

/**
 * The CPU BENCH_PIN pins a suite's servers to, or null (not pinned): 'auto' takes the last CPU
 * when the machine has two or more and `taskset` runs, so the load generator keeps the others.
 */
export function pinCpu(cfg: Pick<BenchConfig, 'pin'>): number | null {
  if (cfg.pin === 'off') return null;
  const count = cpus().length;
  if (cfg.pin === 'auto') {
    if (count < 2) return null;
    return spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0 ? count - 1 : null;
  }
  if (cfg.pin >= count) throw new BenchBroken(`BENCH_PIN=${cfg.pin}: this machine has CPUs 0..${count - 1}`);
  return cfg.pin;
}

/**
 * Keeps this process (the load generator: every thread it has and starts) off `cpu`, the one the
 * servers are pinned to, until the returned function restores the affinity it had: otherwise the
 * scheduler may run the generator's event loop or its GC helpers on the servers' core, and a
 * server's figures would carry the generator's work. It only takes `cpu` out of the CPUs the
 * process already had (a bench started under `taskset` keeps its own limits). Does nothing where
 * `taskset` is absent or `cpu` was the only CPU left.
 */
export function keepOffCpu(cpu: number | null): () => void {
  if (cpu === null) return () => {};
  const pid = String(process.pid);
  const hex = /:\s*([0-9a-f]+)\s*$/i.exec(
    spawnSync('taskset', ['-p', pid], { encoding: 'utf8' }).stdout ?? '',
  )?.[1];
  if (hex === undefined) return () => {};
  const without = BigInt(`0x${hex}`) & ~(1n << BigInt(cpu));
  if (without === 0n) return () => {};
  const set = spawnSync('taskset', ['-a', '-p', without.toString(16), pid], { stdio: 'ignore' });
  if (set.status !== 0) return () => {};
  return () => {
    spawnSync('taskset', ['-a', '-p', hex, pid], { stdio: 'ignore' });
  };
}

/**
 * Runs `load` with this process kept off the servers' core ({@link keepOffCpu}), giving the
 * affinity back however it ends.
 *
 * @example
 * const runs = await offServersCore(cpu, () => runInterleaved(targets, plan, hooks));
 */
export async function offServersCore<T>(cpu: number | null, load: () => Promise<T>): Promise<T> {
  const restore = keepOffCpu(cpu);
  try {
    return await load();
  } finally {
    restore();
  }
}

/** How a suite's servers were placed, for its notes. */
export function pinNote(cpu: number | null): string {
  return cpu === null
    ? 'servers not pinned (BENCH_PIN=off, one CPU, or no taskset)'
    : `servers pinned to CPU ${cpu} (taskset -c), the load generator kept off it`;
}

/** The verdict of a rule `value ≤ threshold` (a ratio, unit × unless told). */
export function atMost(
  id: string,
  title: string,
  value: number | null,
  threshold: number,
  unit = '×',
): TargetVerdict {
  return judge({ id, title, value, op: '<=', threshold, unit });
}

/** The verdict of a rule `value < threshold unit` (a latency in ms unless told). */
export function below(
  id: string,
  title: string,
  value: number | null,
  threshold: number,
  unit = 'ms',
): TargetVerdict {
  return judge({ id, title, value, op: '<', threshold, unit });
}

/** What the /user_auth suites start with: the service key, its JWKS child, the customers' file. */
export interface ServiceSide {
  service: RsaKey;
  customers: BenchCustomer[];
  /** The customers in the `--users` format, in a fresh temporary directory. */
  usersFile: string;
  jwks: ChildServer;
  jwksUrl: string;
}

/** The service key (its public half published by the JWKS child), the customers and their file. */
export async function startServiceSide(ctx: SuiteContext, tmpPrefix: string): Promise<ServiceSide> {
  const service = await makeRsaKey(randomUUID());
  const customers = makeCustomers(ctx.config.customers);
  const usersFile = join(await ctx.tmpDir(tmpPrefix), 'users.json');
  await writeFile(usersFile, JSON.stringify(customers));
  const jwks = await startChild({
    id: 'jwks',
    args: [join(ctx.buildDir, 'servers/jwks.mjs')],
    env: { BENCH_JWKS: JSON.stringify({ keys: [service.jwk] }) },
  });
  return { service, customers, usersFile, jwks, jwksUrl: String(jwks.ready.jwks_url) };
}
