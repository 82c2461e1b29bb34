/**
 * Sign-in and callback steps (DESIGN.md "Scenarios"): the runner plays the service and calls the
 * bank's GET /user_auth, /key or /external_id with a fresh X-Session-ID, valid, signed by a key
 * published during the run (`rotated`), or carrying one of the conformance flaws. Tokens come
 * from the conformance suite's own makers (conformance/bad-tokens.ts), each flaw first put through
 * the one token engine; every answer is judged by the one answer judge (answer/judge.ts), so a
 * step, a conformance case and the console's pages give one verdict.
 */
import type { AnswerExpect, CallbackStep, SignInStep } from '../../contract/schemas/scenario';
import { answerOfExchange, judgeAnswer, type AnswerVerdict } from '../answer';
import { answered, badToken, notRefusedWhy, passedSummary, quote, type RunnerKey } from '../conformance';
import { exchange, type ExchangeResult } from '../http';
import type { RunContext, StepOutcome } from './context';
import { freshToken, rotateKey, rulesVerdict } from './keys';

/** A sign-in is a valid call to /user_auth whose answer later steps may refer to. */
export type CallStep = SignInStep | CallbackStep;

/** The expectation a step states, or its default: `pass` for a good token, `refused` for a flaw. */
export function expectationOf(step: CallStep): AnswerExpect {
  if (step.expect !== undefined) return step.expect;
  return step.kind === 'sign-in' || step.token === 'valid' || step.token === 'rotated' ? 'pass' : 'refused';
}

/** The words of an expectation, for a failure's detail. */
export function expectationText(expect: AnswerExpect): string {
  if (expect === 'pass') return '200 with every answer check passing';
  if (expect === 'refused') return '401 (the token must be refused)';
  return `the answer to fail ${expect.fails}`;
}

interface Sent {
  token: string | null;
  what: string;
  result: ExchangeResult;
  verdict: AnswerVerdict;
}

/** Does `sent` meet `expect`? Null when it does, else why not (and the check that decided). */
function unmet(expect: AnswerExpect, sent: Sent): { why: string; check: string | null } | null {
  const { result, verdict } = sent;
  if (expect === 'pass')
    return verdict.ok ? null : { why: `${verdict.failed} failed: ${verdict.detail}`, check: verdict.failed };
  if (expect === 'refused') {
    if (answered(result, 401)) return null;
    return { why: `expected 401${notRefusedWhy(result, { accepted: 'a flawed token' })}`, check: 'status' };
  }
  if (!verdict.ok && verdict.failed === expect.fails) return null;
  return {
    why: verdict.ok
      ? `every check passed; expected ${expect.fails} to fail`
      : `${verdict.failed} failed first, not ${expect.fails}`,
    check: verdict.failed ?? expect.fails,
  };
}

/** The token a call carries, and how the detail names it; null when it would prove nothing. */
async function tokenFor(
  ctx: RunContext,
  variant: CallbackStep['token'],
  obj: string,
  sub: string,
): Promise<{ token: string | null; what: string } | { nothing: string }> {
  const { keys } = ctx;
  if (variant === 'valid')
    return { token: freshToken(keys, obj, sub), what: `a fresh valid X-Session-ID (kid ${keys.first.kid})` };
  if (variant === 'rotated') {
    const key: RunnerKey = ctx.rotated ?? (ctx.rotated = await rotateKey(keys));
    return {
      token: freshToken(keys, obj, sub, key),
      what: `a fresh valid X-Session-ID signed by a key published during the run (kid ${key.kid})`,
    };
  }
  const bad = badToken(variant, {
    obj,
    sub,
    first: keys.first,
    stranger: keys.stranger,
    nowS: Math.floor(keys.now() / 1000),
  });
  const rules = await rulesVerdict(keys, bad.token, obj, sub);
  if (rules.ok)
    return {
      nothing: `internal error: the runner's ${bad.label} token passes the verification engine, so this step proves nothing`,
    };
  return { token: bad.token, what: `${bad.sent} (the rules refuse it at ${rules.failed})` };
}

/**
 * Runs a sign-in or callback step against `${bankAuthUrl}/<route>`, `repeat` times (each call a
 * fresh token on a new connection), stopping at the first call that does not meet the step's
 * expectation.
 *
 * @example
 * const outcome = await runCallStep(ctx, step, 'DE89…', 'ops@bank.example');
 */
export async function runCallStep(
  ctx: RunContext,
  step: CallStep,
  obj: string,
  sub: string,
): Promise<StepOutcome> {
  const route = step.kind === 'sign-in' ? 'user_auth' : step.route;
  const variant = step.kind === 'sign-in' ? 'valid' : step.token;
  const repeat = step.kind === 'sign-in' ? 1 : step.repeat;
  const expect = expectationOf(step);
  const url = `${ctx.target.bankAuthUrl}/${route}`;
  let last: Sent | null = null;
  for (let call = 1; call <= repeat; call++) {
    const made = await tokenFor(ctx, variant, obj, sub);
    if ('nothing' in made) return { status: 'failed', detail: made.nothing, failed_check: null };
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (made.token !== null) headers['X-Session-ID'] = made.token;
    const result = await exchange({ method: 'GET', url, headers, giveUpMs: ctx.giveUpMs });
    const verdict = judgeAnswer({
      route: `/${route}`,
      answer: answerOfExchange(result),
      token: { passed: true },
    });
    last = { token: made.token, what: made.what, result, verdict };
    const miss = unmet(expect, last);
    if (miss) {
      const which = repeat > 1 ? `call ${call} of ${repeat}: ` : '';
      return {
        status: 'failed',
        detail: `${which}GET /${route} for obj ${JSON.stringify(obj)} with ${made.what}; got ${quote(result)}; expected ${expectationText(expect)}: ${miss.why}`,
        failed_check: miss.check,
      };
    }
  }
  const sent = last!;
  const got =
    sent.verdict.ok && sent.result.ok ? passedSummary(sent.result, sent.verdict) : quote(sent.result);
  return {
    status: 'passed',
    detail: `GET /${route} for obj ${JSON.stringify(obj)} with ${sent.what}${repeat > 1 ? ` (${repeat} calls, each judged)` : ''}; got ${got}`,
    failed_check: null,
    outputs: outputsOf(sent.verdict, obj, sub),
  };
}

/** What later steps may use: obj, sub and the answer's external_id and phone (never `key`). */
function outputsOf(verdict: AnswerVerdict, obj: string, sub: string): Record<string, string> {
  const out: Record<string, string> = { obj, sub };
  for (const field of ['external_id', 'phone'] as const) {
    const value = verdict.body?.[field];
    if (typeof value === 'string') out[field] = value;
  }
  return out;
}
