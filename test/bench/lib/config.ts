/**
 * Bench settings from the environment. Defaults keep `npm run bench` about two minutes on
 * two cores; BENCH_SCALE stretches or shrinks every size at once (0.2 for a smoke run, 3 for a
 * steadier one).
 *
 *   BENCH_SCALE           1      multiplies round length, warm-up length and token pool size
 *   BENCH_CONNECTIONS     32     concurrent keep-alive connections per run
 *   BENCH_ROUNDS          5      measured rounds per target (interleaved)
 *   BENCH_ROUND_SECONDS   2.5×S  aimed length of a round (its count is calibrated from warm-up)
 *   BENCH_WARMUP_SECONDS  1.5×S  warm-up per target
 *   BENCH_TOKENS          2000×S distinct bank tokens in the pool
 *   BENCH_VERIFY_EVERY    50     verify the signature of one response body in N during load
 *   BENCH_SUITES          all    comma list of suites (sandbox, bank, notify, ui, store, team, delivery)
 *   BENCH_TARGETS         all    comma list of target ids to load (e.g. http-floor,crypto-floor)
 *   BENCH_SANDBOX         bundle bundle: core bundled from source; cli: dist/cli/dets-console.js sandbox
 *   BENCH_CRYPTO_FLOOR    sync   sync: crypto.verify/sign on the event loop; async: their thread-pool forms
 *   BENCH_PROFILE         none   comma list of target ids to run under node --cpu-prof
 *   BENCH_RESULTS         .bench/results.json
 *   BENCH_CUSTOMERS       1000   customers in the bank's directory (bank suite)
 *   BENCH_RATE            2000   requests/s of the bank's fixed-rate /user_auth run
 *   BENCH_RATE_SECONDS    4×S    length of each round of that run
 *   BENCH_RATE_ROUNDS     3      interleaved rounds of that run (bank, http floor, bank, …)
 *   BENCH_UI_EVENTS       100000 notification events seeded for the notifications page (ui suite)
 *   BENCH_UI_STEPS        200    programmatic scroll steps through the list
 *   BENCH_UI_LOAD_SECONDS 5      how long BENCH_RATE events a second arrive on each live page (ui suite)
 *   BENCH_STORE_EVENTS    1e6×S  events in the store suite's profile (at most 1,000,000; S capped at 1)
 *   BENCH_STORE_RUNS      3      timed runs of serve and of each events --search (the median counts)
 *   BENCH_STORE_BUILD_SECONDS 900 the profile's build gives up (bench broken) past this
 *   BENCH_CHROMIUM        /usr/bin/chromium
 *   BENCH_FLOOD_SECONDS   30×S   how long the notify suite's flood scenario lasts (notify-flood; at least 5 s)
 *   BENCH_DELIVERY_SECONDS   60     the delivery suite's sample at --time-scale 1 (issue 27: 60 s; at least 5)
 *   BENCH_DELIVERY_IN_FLIGHT 1000   deliveries the delivery suite keeps on the ladder
 *   BENCH_DELIVERY_READ      3000   deliveries whose attempts are read back for the scheduler's timing error
 *   BENCH_PIN             auto   CPU the bank and notify suites' servers are pinned to (taskset -c): auto (the last
 *                                CPU, when there are 2 or more and taskset exists), off, or a CPU number
 */

export interface BenchConfig {
  scale: number;
  connections: number;
  rounds: number;
  roundSeconds: number;
  warmupSeconds: number;
  tokens: number;
  verifyEvery: number;
  /** null: every suite. */
  suites: string[] | null;
  /** null: every target. */
  targets: string[] | null;
  sandboxVia: 'bundle' | 'cli';
  cryptoFloor: 'sync' | 'async';
  profile: string[];
  resultsFile: string;
  minAmount: number;
  maxAmount: number;
  capFactor: number;
  customers: number;
  rate: number;
  rateSeconds: number;
  rateRounds: number;
  uiEvents: number;
  uiSteps: number;
  uiLoadSeconds: number;
  storeEvents: number;
  storeRuns: number;
  storeBuildSeconds: number;
  chromium: string;
  /** Seconds of the notify suite's flood scenario (issue 24). */
  floodSeconds: number;
  /** Seconds of the delivery suite's sample (issue 27). */
  deliverySeconds: number;
  /** Deliveries the delivery suite keeps in flight. */
  deliveryInFlight: number;
  /** Deliveries read back for the timing error. */
  deliveryRead: number;
  /** 'auto', 'off' or a CPU number (see pinCpu in steps.ts). */
  pin: 'auto' | 'off' | number;
}

/** A setting that cannot be used; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

function numberVar(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
  integer = false,
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw new ConfigError(
      `${name} must be ${integer ? 'an integer' : 'a number'} within ${min}..${max}, got "${raw}"`,
    );
  }
  return v;
}

function listVar(env: NodeJS.ProcessEnv, name: string): string[] | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'all') return null;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function pinVar(env: NodeJS.ProcessEnv): 'auto' | 'off' | number {
  const raw = env.BENCH_PIN?.trim() || 'auto';
  if (raw === 'auto' || raw === 'off') return raw;
  const cpu = Number(raw);
  if (!Number.isInteger(cpu) || cpu < 0 || cpu > 4095)
    throw new ConfigError(`BENCH_PIN must be auto, off or a CPU number, got "${raw}"`);
  return cpu;
}

export function readConfig(env: NodeJS.ProcessEnv): BenchConfig {
  const scale = numberVar(env, 'BENCH_SCALE', 1, 0.05, 50);
  const via = env.BENCH_SANDBOX?.trim() || 'bundle';
  if (via !== 'bundle' && via !== 'cli')
    throw new ConfigError(`BENCH_SANDBOX must be "bundle" or "cli", got "${via}"`);
  const cryptoFloor = env.BENCH_CRYPTO_FLOOR?.trim() || 'sync';
  if (cryptoFloor !== 'sync' && cryptoFloor !== 'async') {
    throw new ConfigError(`BENCH_CRYPTO_FLOOR must be "sync" or "async", got "${cryptoFloor}"`);
  }
  const connections = numberVar(env, 'BENCH_CONNECTIONS', 32, 1, 1024, true);
  return {
    scale,
    connections,
    rounds: numberVar(env, 'BENCH_ROUNDS', 5, 1, 100, true),
    roundSeconds: numberVar(env, 'BENCH_ROUND_SECONDS', 2.5 * scale, 0.1, 600),
    warmupSeconds: numberVar(env, 'BENCH_WARMUP_SECONDS', Math.max(0.5, 1.5 * scale), 0.1, 600),
    tokens: numberVar(env, 'BENCH_TOKENS', Math.max(100, Math.round(2000 * scale)), 1, 1_000_000, true),
    verifyEvery: numberVar(env, 'BENCH_VERIFY_EVERY', 50, 1, 1_000_000, true),
    suites: listVar(env, 'BENCH_SUITES'),
    targets: listVar(env, 'BENCH_TARGETS'),
    sandboxVia: via,
    cryptoFloor,
    profile: listVar(env, 'BENCH_PROFILE') ?? [],
    resultsFile: env.BENCH_RESULTS?.trim() || '.bench/results.json',
    minAmount: connections * 4,
    maxAmount: 1_000_000,
    capFactor: 2,
    customers: numberVar(env, 'BENCH_CUSTOMERS', 1000, 1, 1_000_000, true),
    rate: numberVar(env, 'BENCH_RATE', 2000, 1, 1_000_000, true),
    rateSeconds: numberVar(env, 'BENCH_RATE_SECONDS', Math.max(1, 4 * scale), 0.5, 600),
    rateRounds: numberVar(env, 'BENCH_RATE_ROUNDS', 3, 1, 20, true),
    uiEvents: numberVar(env, 'BENCH_UI_EVENTS', 100_000, 1, 10_000_000, true),
    uiSteps: numberVar(env, 'BENCH_UI_STEPS', 200, 1, 100_000, true),
    uiLoadSeconds: numberVar(env, 'BENCH_UI_LOAD_SECONDS', 5, 1, 120),
    storeEvents: numberVar(
      env,
      'BENCH_STORE_EVENTS',
      Math.max(1000, Math.round(1_000_000 * Math.min(1, scale))),
      100,
      1_000_000,
      true,
    ),
    storeRuns: numberVar(env, 'BENCH_STORE_RUNS', 3, 1, 20, true),
    storeBuildSeconds: numberVar(env, 'BENCH_STORE_BUILD_SECONDS', 900, 10, 3600),
    chromium: env.BENCH_CHROMIUM?.trim() || '/usr/bin/chromium',
    floodSeconds: numberVar(env, 'BENCH_FLOOD_SECONDS', Math.max(5, 30 * scale), 5, 600),
    deliverySeconds: numberVar(env, 'BENCH_DELIVERY_SECONDS', 60, 5, 600),
    deliveryInFlight: numberVar(env, 'BENCH_DELIVERY_IN_FLIGHT', 1000, 1, 100_000, true),
    deliveryRead: numberVar(env, 'BENCH_DELIVERY_READ', 3000, 1, 100_000, true),
    pin: pinVar(env),
  };
}
