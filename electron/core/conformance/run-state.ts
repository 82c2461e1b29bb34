/**
 * A conformance run's plain state (issue 25 item 1: modules over a plain state object instead of
 * one closure): what the runner holds for its lifetime (keys, JWKS server, bounds) and what one
 * run accumulates (results, the routes that accepted a valid token, the JWKS fetch count at the
 * start). The case modules (cases/*.ts) read and extend it through the small functions here.
 */
import type { CaseResult, ConformanceActivity, ConformanceReport } from '../../contract/schemas/conformance';
import { equalsJudge, keySetFromJwks, verifyToken, type EngineVerdict } from '../jwt';
import type { JwksServer } from './jwks-server';
import { serviceClaims, signRs256, type RunnerKey } from './keys';
import type { PlannedCase, RouteName } from './plan';

export interface ConformanceTarget {
  /** {bank_auth_url}: the callbacks are `${bankAuthUrl}/user_auth` etc. */
  bankAuthUrl: string;
  obj: string;
  sub: string;
}

export interface RunHooks {
  kind?: ConformanceReport['kind'];
  /** Called as each case finishes, in order (for live tables and progress bars). */
  onCase?: (result: CaseResult, done: number, total: number) => void;
  /** Called as a case begins and as a wait begins: what the run is doing and waiting for. */
  onActivity?: (activity: ConformanceActivity) => void;
}

/** What a runner holds from start to close; `published` grows by one key per rotation case. */
export interface RunnerContext {
  now: () => number;
  /** Valid calls per route in the budget cases. */
  budgetCalls: number;
  /** A request with no complete answer after this long is given up. */
  giveUpMs: number;
  /** 0: never wait and retry for a bank's rate-limited JWKS refresh. */
  refreshWaitMs: number;
  /** The first key, published from the start. */
  first: RunnerKey;
  /** A key never published ("another key", "unknown kid"). */
  stranger: RunnerKey;
  /** The keys the JWKS serves. */
  published: RunnerKey[];
  jwks: JwksServer;
}

/** One run against one bank: the runner's context plus what the run has seen so far. */
export interface RunState {
  runner: RunnerContext;
  /** The bank's callback base, without a trailing slash. */
  base: string;
  obj: string;
  sub: string;
  startedAt: number;
  /** The JWKS fetch count when the run began (fetches of earlier runs do not count). */
  fetchesBefore: number;
  results: CaseResult[];
  /** Routes that answered a valid token 200: only there do the negative cases mean something. */
  accepted: Set<RouteName>;
  hooks: RunHooks;
  /** How many cases the run has. */
  total: number;
}

/** `https://bank.example/auth/` → `https://bank.example/auth` (the callbacks are appended). */
export function normalizeBankAuthUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * A fresh run's state.
 *
 * @example
 * const state = newRunState(runner, { bankAuthUrl, obj, sub }, {}, plan.length);
 */
export function newRunState(
  runner: RunnerContext,
  target: ConformanceTarget,
  hooks: RunHooks,
  total: number,
): RunState {
  return {
    runner,
    base: normalizeBankAuthUrl(target.bankAuthUrl),
    obj: target.obj,
    sub: target.sub,
    startedAt: runner.now(),
    fetchesBefore: runner.jwks.fetches.length,
    results: [],
    accepted: new Set(),
    hooks,
    total,
  };
}

/** Milliseconds to one decimal, as reports keep them. */
export const round = (ms: number) => Math.round(ms * 10) / 10;

/** The claims' clock for tokens made now (whole seconds). */
export const nowSeconds = (state: RunState) => Math.floor(state.runner.now() / 1000);

/** A valid service token for the run's customer, signed by `key` (the first key by default). */
export function validToken(state: RunState, key: RunnerKey = state.runner.first): string {
  return signRs256(key.privateKey, key.kid, serviceClaims(state.obj, state.sub, nowSeconds(state), {}));
}

/** JWKS fetches at or after `t` (a `now()` value). */
export function fetchesSince(state: RunState, t: number): number {
  return state.runner.jwks.fetches.filter((f) => f >= t).length;
}

/** Has the bank fetched the runner's JWKS in this run? */
export const fetchedThisRun = (state: RunState) => state.runner.jwks.fetches.length !== state.fetchesBefore;

/** The question a 401 to a valid token raises, naming the URL and customer the bank must know. */
export function trustHint(state: RunState): string {
  return `is the bank configured to trust ${state.runner.jwks.url}, and does it know obj ${JSON.stringify(state.obj)} with sub ${JSON.stringify(state.sub)}?`;
}

/**
 * What the service's rules say of a token (DESIGN.md: the conformance runner's expectations come
 * from the one engine): the runner's published keys, and the bank's customer obj/sub.
 */
export function expectationOf(state: RunState, token: string | null): Promise<EngineVerdict> {
  return verifyToken({
    token: token ?? undefined,
    header: 'X-Session-ID',
    keys: {
      kind: 'set',
      set: keySetFromJwks({ keys: state.runner.published.map((k) => ({ ...k.jwk })) }, { source: 'jwks' }),
    },
    nowSeconds: state.runner.now() / 1000,
    obj: equalsJudge('obj', state.obj),
    sub: equalsJudge('sub', state.sub),
    mode: 'first-failure',
  });
}

/** What a case module decides; the plan's fields and the duration are added by `finishCase`. */
export type CaseOutcome = Omit<CaseResult, 'id' | 'title' | 'route' | 'spec' | 'duration_ms'>;

/** Records a finished case (timed from `started`, a `performance.now()`) and tells the hooks. */
export function finishCase(state: RunState, c: PlannedCase, started: number, outcome: CaseOutcome): void {
  const result: CaseResult = {
    id: c.id,
    title: c.title,
    route: `/${c.route}`,
    spec: c.spec,
    duration_ms: round(performance.now() - started),
    ...outcome,
  };
  state.results.push(result);
  state.hooks.onCase?.(result, state.results.length, state.total);
}

/** Tells the hooks what the run is doing; a listener's failure never stops the run. */
export function tell(state: RunState, activity: Omit<ConformanceActivity, 'jwks_fetches'>): void {
  try {
    state.hooks.onActivity?.({
      ...activity,
      jwks_fetches: state.runner.jwks.fetches.length - state.fetchesBefore,
    });
  } catch {
    // a listener's failure never stops the run
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The wait before sending a token again, told first so the page can count it down. */
export async function waitForRefresh(state: RunState, c: PlannedCase, why: string): Promise<void> {
  const { refreshWaitMs, giveUpMs, now } = state.runner;
  tell(state, {
    kind: 'refresh-wait',
    case_id: c.id,
    text: `${why}: waiting ${Math.round(refreshWaitMs / 1000)} s (a bank may rate-limit JWKS refreshes for unknown kids), then sending the token again`,
    timeout_ms: refreshWaitMs + giveUpMs,
    until: new Date(now() + refreshWaitMs).toISOString(),
  });
  await sleep(refreshWaitMs);
}
