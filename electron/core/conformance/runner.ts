/**
 * The conformance runner (issue 7; DESIGN.md "Command line" `conformance`): it plays the service
 * against a bank's own callbacks (spec 4.2). It generates its own RSA keys, serves their JWKS on
 * 127.0.0.1:<jwks-port> (the bank under test is configured to trust that URL), and calls the
 * bank's GET /user_auth, /key and /external_id with good and deliberately bad X-Session-ID tokens
 * for a customer the bank knows (obj/sub), judging each answer: 200 with the spec's fields for a
 * good token, 401 for every bad one, every good answer within 1 s, and a rotated key accepted.
 *
 * The shape (issue 25): the plan (plan.ts) lists the cases; each case kind runs in its own
 * module (cases/*.ts) over a plain run state (run-state.ts); the report is built from that state
 * (report.ts). Every call is kept whole for export (send.ts).
 *
 * Threat model: the bank under test is untrusted: answers are read with a size cap and a time
 * limit, and nothing in them is executed or followed. Private keys never leave this process.
 */
import type { ConformanceReport } from '../../contract/schemas/conformance';
import { runCase } from './cases';
import { startJwksServer } from './jwks-server';
import { generateRunnerKey } from './keys';
import { planCases } from './plan';
import { buildReport } from './report';
import { newRunState, type ConformanceTarget, type RunHooks, type RunnerContext } from './run-state';

export { BUDGET_MS, percentile } from './cases';
export { normalizeBankAuthUrl, type ConformanceTarget, type RunHooks } from './run-state';

export const DEFAULT_BUDGET_CALLS = 10;
/** A request with no complete answer after this long is given up (well past the budget). */
export const DEFAULT_GIVE_UP_MS = 5000;
/**
 * How long to wait before retrying a token with a kid the bank has not loaded yet: a careful
 * bank rate-limits JWKS refreshes for unknown kids (the console's own: one fetch per second; others wait longer).
 */
export const DEFAULT_REFRESH_WAIT_MS = 11_000;

export interface RunnerOptions {
  /** 127.0.0.1 port of the runner's JWKS (DESIGN.md default 7303; 0: any free port). */
  jwksPort: number;
  /** Valid calls per route in the budget cases (default 10). */
  budgetCalls?: number;
  giveUpMs?: number;
  /** 0: never wait and retry for a bank's rate-limited JWKS refresh. */
  refreshWaitMs?: number;
  now?: () => number;
}

export interface ConformanceRunner {
  /** The URL the bank under test must trust (spec 4.1 #3). */
  readonly jwksUrl: string;
  /** How many cases a run has (known before it starts). */
  readonly total: number;
  run(target: ConformanceTarget, hooks?: RunHooks): Promise<ConformanceReport>;
  close(): Promise<void>;
}

/**
 * Starts the runner: generates its first key and serves its JWKS. `run` may be called more than
 * once (each run publishes its rotated key in addition); `close` stops the JWKS server.
 *
 * @example
 * const runner = await startConformance({ jwksPort: 7303 });
 * console.log(`configure the bank to trust ${runner.jwksUrl}`);
 * const report = await runner.run({ bankAuthUrl, obj: 'DE89…', sub: 'ops@bank.example' });
 * await runner.close();
 */
export async function startConformance(options: RunnerOptions): Promise<ConformanceRunner> {
  const now = options.now ?? Date.now;
  // The first key (published), a stranger (never published: "another key", "unknown kid").
  const [first, stranger] = await Promise.all([generateRunnerKey(), generateRunnerKey()]);
  const published = [first];
  const jwks = await startJwksServer({
    port: options.jwksPort,
    keys: () => published.map((k) => k.jwk),
    now,
  });
  const context: RunnerContext = {
    now,
    budgetCalls: Math.max(1, options.budgetCalls ?? DEFAULT_BUDGET_CALLS),
    giveUpMs: options.giveUpMs ?? DEFAULT_GIVE_UP_MS,
    refreshWaitMs: options.refreshWaitMs ?? DEFAULT_REFRESH_WAIT_MS,
    first,
    stranger,
    published,
    jwks,
  };
  const plan = planCases(context.budgetCalls);
  let running = false;

  async function run(target: ConformanceTarget, hooks: RunHooks = {}): Promise<ConformanceReport> {
    if (running) throw new Error('a conformance run is already in progress on this runner');
    running = true;
    try {
      const state = newRunState(context, target, hooks, plan.length);
      for (const c of plan) await runCase(state, c);
      return buildReport(state, now());
    } finally {
      running = false;
    }
  }

  return {
    jwksUrl: jwks.url,
    total: plan.length,
    run,
    close: () => jwks.close(),
  };
}
