/**
 * The registration flow of spec 4.4, played by the sandbox: validate the bank's JWT as the
 * authenticate endpoint does (steps 5-6), build the service's own JWT with the bank's obj and
 * sub (step 7), call the bank's GET {bank_auth_url}/user_auth with it in X-Session-ID, and
 * judge the answer with the one answer judge (core/answer; DESIGN.md "Sandbox service", "One
 * judge of the bank's answer"): reachable, budget, status, json, external_id,
 * external_id_length, key, phone, fields, each a step of the trace.
 *
 * The 1 s budget: the call is timed from the start of the request until the whole answer has
 * arrived. A late answer fails the `budget` step however good it is, but the sandbox waits for it
 * (up to {@link GIVE_UP_MS}) and the judge judges the rest too, so the engineer learns both that
 * the bank is too slow and whether its answer would otherwise pass. A bank that cannot be reached
 * is a failed `reachable` step, never a crash.
 */
import type { Counterparty, SandboxSettings, SignInResult } from '../../contract/schemas/sandbox';
import type { Check } from '../../contract/schemas/inspector';
import { ANSWER_TITLES, answerOfExchange, judgeAnswer } from '../answer';
import { SIGN_IN_FLOW } from '../jwt';
import type { BankJwtVerifier } from './bank-jwt';
import { maskUserSecret, traceBody, traceHeaders, TraceBuilder } from './trace';
import { userAgent } from './user-agent';
import { exchange, type ExchangeResult } from '../http';
export { CALLBACK_BUDGET_MS } from '../http';

/** How long the sandbox waits for a late answer before giving up on it. */
export const GIVE_UP_MS = 5000;

/**
 * The sign-in's steps (DESIGN.md "Sandbox service"): the bank's JWT and URL, then the answer
 * judge's checks of a /user_auth answer (every answer check: /user_auth has them all).
 */
export const SIGN_IN_STEPS = {
  bank_jwt: 'Bank JWT (CX-Authorization)',
  bank_url: 'Bank auth URL',
  ...ANSWER_TITLES,
} as const;
type StepId = keyof typeof SIGN_IN_STEPS;

export interface SignInDeps {
  verifier: BankJwtVerifier;
  settings: () => SandboxSettings;
  now: () => number;
  /** Signs the service's JWT (X-Session-ID) with the sandbox's active key. */
  signServiceToken: (claims: { obj: string; sub: string }) => Promise<string>;
}

/** `base` + `/path`, keeping base's own path and query. */
export function joinUrl(base: string, suffix: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${suffix}`;
  return url.toString();
}

/**
 * Runs the flow for `counterparty` with `token` as CX-Authorization (undefined: the header was
 * absent). Never throws for anything the bank or the token does.
 */
export async function runSignIn(
  deps: SignInDeps,
  counterparty: Counterparty,
  token: string | undefined,
): Promise<SignInResult> {
  const trace = new TraceBuilder('sign-in', counterparty.counterparty_guid, deps.now);
  const pending = Object.keys(SIGN_IN_STEPS) as StepId[];
  const step = (id: StepId, status: 'passed' | 'failed' | 'skipped' | 'info', detail: string, extra = {}) => {
    pending.splice(pending.indexOf(id), 1);
    trace.step(id, SIGN_IN_STEPS[id], status, detail, extra);
  };
  const skipRest = (why: string) => {
    for (const id of [...pending]) step(id, 'skipped', `not judged: ${why}`);
  };
  const done = (user: Record<string, unknown> | null): SignInResult => {
    const t = trace.finish();
    return { ok: t.ok, user: t.ok ? user : null, failed: t.failed, trace: t };
  };

  // Spec 4.4 steps 5-6: the bank's JWT, judged exactly as the authenticate endpoint does.
  const settings = deps.settings();
  const verdict = await deps.verifier.verify(counterparty, token, deps.now(), settings.max_lifetime_seconds);
  if (!verdict.ok) {
    step('bank_jwt', 'failed', verdict.detail);
    skipRest('the bank JWT was refused');
    return done(null);
  }
  const { obj, sub } = verdict.claims;
  step(
    'bank_jwt',
    'passed',
    `verified with the key registered as kid ${JSON.stringify(verdict.kid)} (${verdict.alg}); flow ${SIGN_IN_FLOW}, obj ${JSON.stringify(obj)}, sub ${JSON.stringify(sub)}` +
      // A zero or negative lifetime passes on exp alone (DESIGN.md "Sandbox service"), with advice.
      (verdict.advice ? `; note: ${verdict.advice}` : ''),
  );

  const base = counterparty.bank_auth_url;
  if (!base) {
    step(
      'bank_url',
      'failed',
      `the counterparty has no bank_auth_url: set it with PATCH /sandbox/v1/counterparties/${counterparty.counterparty_guid}`,
    );
    skipRest('there is no bank URL to call');
    return done(null);
  }
  const url = joinUrl(base, '/user_auth');
  step('bank_url', 'passed', `calling GET ${url}`);

  // Spec 4.4 step 7: the service's JWT carries the bank's obj and sub back to it.
  const sessionToken = await deps.signServiceToken({ obj, sub });
  const requestHeaders = {
    'X-Session-ID': sessionToken,
    Accept: 'application/json',
    'User-Agent': userAgent(),
  };
  const answer = await exchange({ method: 'GET', url, headers: requestHeaders, giveUpMs: GIVE_UP_MS });
  const request = { method: 'GET', url, headers: requestHeaders, body: null };
  // The sandbox's own token passes its own checks: only the answer is judged.
  const judged = judgeAnswer({
    route: '/user_auth',
    answer: answerOfExchange(answer),
    token: { passed: true },
  });
  for (const check of judged.checks) {
    step(check.id as StepId, check.status, check.detail, stepExtra(check, answer, request));
  }
  return done(judged.body);
}

/** What an answer step carries beside its words: the exchange on `reachable`, the time on `budget`. */
function stepExtra(
  check: Check,
  answer: ExchangeResult,
  request: { method: string; url: string; headers: Record<string, string>; body: null },
): object {
  if (check.id === 'budget') return { duration_ms: answer.durationMs };
  if (check.id !== 'reachable') return {};
  if (!answer.ok) return { duration_ms: answer.durationMs, request };
  // The user secret never appears in a trace, only its length.
  const body = traceBody(
    answer.body.length > 0 ? maskUserSecret(answer.body.toString('utf8')) : null,
    answer.truncated,
  );
  return {
    duration_ms: answer.durationMs,
    request,
    response: { status: answer.status, headers: traceHeaders(answer.headers), body },
  };
}
