/**
 * The registration flow of spec 4.4, played by the sandbox: validate the bank's JWT as the
 * authenticate endpoint does (steps 5-6), build the service's own JWT with the bank's obj and
 * sub (step 7), call the bank's GET {bank_auth_url}/user_auth with it in X-Session-ID, and
 * judge the answer against spec 2.5, 4.2 and 8: answered within 1 second, 200, a JSON object
 * with external_id (a string of at most 500 symbols), key and phone (strings).
 *
 * The 1 s budget: the call is timed from the start of the request until the whole answer has
 * arrived. A late answer fails the `deadline` step however good it is, but the sandbox waits
 * for it (up to {@link GIVE_UP_MS}) and judges the rest too, so the engineer learns both that
 * the bank is too slow and whether its answer would otherwise pass. A bank that cannot be
 * reached is a failed `reachable` step, never a crash.
 */
import type { Counterparty, SandboxSettings, SignInResult } from '../../contract/schemas/sandbox';
import { budgetDetail, CALLBACK_BUDGET_MS, overBudget } from '../http/budget';
import { exchange, type ExchangeResult } from '../http/exchange';
import { SIGN_IN_FLOW } from '../jwt';
import type { BankJwtVerifier } from './bank-jwt';
import { maskSecret, maskUserSecret, traceBody, traceHeaders, TraceBuilder } from './trace';
import { userAgent } from './user-agent';

export { CALLBACK_BUDGET_MS } from '../http/budget';
/** How long the sandbox waits for a late answer before giving up on it. */
export const GIVE_UP_MS = 5000;
/** Spec 2.5 and 8: external_id is up to 500 symbols (counted as Unicode code points). */
export const EXTERNAL_ID_MAX_SYMBOLS = 500;

export const SIGN_IN_STEPS = {
  bank_jwt: 'Bank JWT (CX-Authorization)',
  bank_url: 'Bank auth URL',
  reachable: 'Bank reachable (GET /user_auth)',
  deadline: 'Answered within 1 s',
  status: 'HTTP status 200',
  json: 'JSON object',
  external_id: 'external_id present',
  external_id_length: 'external_id at most 500 symbols',
  key: 'key present',
  phone: 'phone present',
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
    `verified with the key registered as kid ${JSON.stringify(verdict.kid)} (${verdict.alg}); flow ${SIGN_IN_FLOW}, obj ${JSON.stringify(obj)}, sub ${JSON.stringify(sub)}`,
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
  judgeExchange(answer, request, step, skipRest);
  if (!answer.ok) return done(null);

  // Spec 4.2: a successful response only when every check passed; otherwise 401.
  if (answer.status !== 200) {
    const why =
      answer.status === 401
        ? "the bank refused the X-Session-ID with 401 (spec 4.2: one of its checks failed; its answer's body says which)"
        : `the bank answered ${answer.status}; spec 4.2 expects 200 with the user data (or 401 when a check fails)`;
    step('status', 'failed', why);
    skipRest(`the bank answered ${answer.status}, not 200`);
    return done(null);
  }
  step('status', 'passed', 'the bank answered 200');

  const parsed = parseObject(answer.body, answer.truncated);
  if (!parsed.ok) {
    step('json', 'failed', `${parsed.why}; spec 2.5 wants a JSON object with the user data`);
    skipRest('the body is not a JSON object');
    return done(null);
  }
  const user = parsed.value;
  const type = answer.headers['content-type'];
  step(
    'json',
    'passed',
    `a JSON object with ${Object.keys(user).length} member(s)` +
      (type && !/^application\/json/i.test(type)
        ? ` (note: Content-Type is ${JSON.stringify(type)}, not application/json)`
        : ''),
  );

  judgeRequiredString(user, 'external_id', step, (v) => `external_id is ${JSON.stringify(clip(v))}`);
  const externalId = user.external_id;
  if (typeof externalId === 'string' && externalId !== '') {
    const symbols = [...externalId].length;
    step(
      'external_id_length',
      symbols <= EXTERNAL_ID_MAX_SYMBOLS ? 'passed' : 'failed',
      symbols <= EXTERNAL_ID_MAX_SYMBOLS
        ? `${symbols} symbol(s), within ${EXTERNAL_ID_MAX_SYMBOLS}`
        : `${symbols} symbols: longer than the ${EXTERNAL_ID_MAX_SYMBOLS} spec 2.5 allows`,
    );
  } else {
    step('external_id_length', 'skipped', 'not judged: there is no external_id string');
  }
  // The user secret never appears in a trace, only its length.
  judgeRequiredString(user, 'key', step, (v) => `key is present (${maskSecret(v)})`);
  judgeRequiredString(user, 'phone', step, (v) => `phone is ${JSON.stringify(clip(v))}`);
  return done(user);
}

function parseObject(
  body: Buffer,
  truncated: boolean,
): { ok: true; value: Record<string, unknown> } | { ok: false; why: string } {
  if (truncated) return { ok: false, why: 'the body is larger than 1 MiB' };
  if (body.length === 0) return { ok: false, why: 'the body is empty' };
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (err) {
    return { ok: false, why: `the body is not JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const type = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { ok: false, why: `the body is JSON, but ${type}, not an object` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function clip(value: string): string {
  return value.length > 60 ? `${value.slice(0, 60)}…` : value;
}

type StepFn = (
  id: StepId,
  status: 'passed' | 'failed' | 'skipped' | 'info',
  detail: string,
  extra?: object,
) => void;

/** Spec 2.5: external_id, key and phone are required strings. */
function judgeRequiredString(
  user: Record<string, unknown>,
  field: 'external_id' | 'key' | 'phone',
  step: StepFn,
  describe: (value: string) => string,
): void {
  if (!Object.hasOwn(user, field)) {
    step(field, 'failed', `${field} is missing; spec 2.5 requires external_id, key and phone`);
    return;
  }
  const value = user[field];
  if (typeof value !== 'string') {
    const type = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    step(field, 'failed', `${field} is ${type}, not a string (spec 2.5)`);
    return;
  }
  if (value.trim() === '') {
    step(field, 'failed', `${field} is an empty string; spec 2.5 requires a value`);
    return;
  }
  step(field, 'passed', describe(value));
}

/** The reachable and deadline steps, from how the exchange went. */
function judgeExchange(
  answer: ExchangeResult,
  request: { method: string; url: string; headers: Record<string, string>; body: null },
  step: StepFn,
  skipRest: (why: string) => void,
): void {
  const budget = `${CALLBACK_BUDGET_MS} ms budget (spec 4.2)`;
  if (!answer.ok) {
    if (!answer.connected) {
      step('reachable', 'failed', `could not reach the bank: ${answer.message}`, {
        duration_ms: answer.durationMs,
        request,
      });
      skipRest('the bank could not be reached');
      return;
    }
    step('reachable', 'passed', `connected in ${answer.connectMs} ms`, {
      duration_ms: answer.connectMs,
      request,
    });
    step(
      'deadline',
      'failed',
      answer.phase === 'timeout'
        ? `no answer within ${GIVE_UP_MS} ms: far over the ${budget}; the sandbox gave up`
        : `the bank did not answer: ${answer.message}`,
      { duration_ms: answer.durationMs },
    );
    skipRest('there is no answer to judge');
    return;
  }
  const body = traceBody(
    answer.body.length > 0 ? maskUserSecret(answer.body.toString('utf8')) : null,
    answer.truncated,
  );
  step('reachable', 'passed', `connected in ${answer.connectMs ?? '?'} ms; answered ${answer.status}`, {
    duration_ms: answer.durationMs,
    request,
    response: { status: answer.status, headers: traceHeaders(answer.headers), body },
  });
  // The same rule and words as the bank's `budget` verdict (http/budget.ts): one answer per callback.
  step('deadline', overBudget(answer.durationMs) ? 'failed' : 'passed', budgetDetail(answer.durationMs), {
    duration_ms: answer.durationMs,
  });
}
