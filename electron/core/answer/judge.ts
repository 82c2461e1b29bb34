/**
 * The answer judge: the one place that decides whether a bank's answer to a callback is what the
 * service expects (DESIGN.md "Bank endpoints", "One judge of the bank's answer"; spec 2.5, 2.6,
 * 4.2, 5.6, 7, 8). Whoever answered (the console's own bank, an engineer's backend behind forward
 * mode, a bank under conformance, a bank called by the sandbox's sign-in), its five consumers call
 * {@link judgeAnswer}: the bank endpoints when they record a callback, forward mode, the sandbox's
 * sign-in flow, the conformance runner's valid-token cases, and (through the stored verdict) the
 * walkthrough. A caller only says what arrived and what the token checks found; it never
 * re-decides a rule. It sits beside the token engine (jwt/engine.ts) and has its shape.
 *
 * The checks, in order: `reachable` (an HTTP answer arrived), `budget` (the whole answer within
 * 1 s: http/budget.ts), `status` (exactly 200; 401 when the token failed a check), `json` (the
 * body parses as a JSON object; the Content-Type is not judged, a non-JSON one is a warning),
 * then per route: /user_auth `external_id`, `external_id_length`, `key`, `phone`, `fields`;
 * /key `key`; /external_id `external_id`, `external_id_length`. Extra members are allowed. Each
 * check is judged on its own (a late answer's body is still judged, so the engineer learns both);
 * what cannot be judged is skipped with why. The verdict: a token check that failed decides (the
 * answer's own failures, `budget` or a 200 to a bad token, are then warnings beside it); else the
 * first failed answer check.
 *
 * Threat model: the answer is untrusted. It is parsed with JSON.parse only (never evaluated), its
 * size is the caller's cap (`truncated` fails `json`), nothing in it is followed, and the user
 * secret `key` is never quoted in a detail or warning.
 */
import type { Check } from '../../contract/schemas/inspector';
import {
  describeValue,
  externalIdLength,
  LEAN_PASS,
  optionalFields,
  requiredString,
  type Finding,
} from './fields';
import { ANSWER_TITLES, answerCheck, type AnswerCheckId } from './titles';
import { budgetDetail, type ExchangeResult, isJsonContentType, overBudget } from '../http';

/** The callbacks a bank offers (spec 4.2). */
export type AnswerRoute = '/user_auth' | '/key' | '/external_id';
export const ANSWER_ROUTES: readonly AnswerRoute[] = ['/user_auth', '/key', '/external_id'];

/** What the token checks found of the X-Session-ID the answer answers. */
export type TokenOutcome =
  | { passed: true }
  | {
      passed: false;
      /** The first failed token check's id (`sub`, `kid`…). */
      failed: string;
      /** Its detail, when the caller has it: the verdict's detail then. */
      detail?: string | null;
    };

/** What arrived from the bank. */
export type Answer =
  | {
      arrived: false;
      /** From the start until the caller gave up or the connection failed. */
      durationMs: number;
      /** Why nothing arrived ("connection refused", "socket hang up", "no answer within 5 s"). */
      why: string;
    }
  | {
      arrived: true;
      status: number;
      /** From the start until the whole answer had arrived (the service's view: spec 4.2). */
      durationMs: number;
      contentType: string | null | undefined;
      /** The body as received; null or empty: none. */
      body: Buffer | string | null;
      /**
       * The body's value when the caller built it (the console's own bank judges the object it
       * sent, without parsing its JSON again). Absent: the judge parses `body`.
       */
      value?: unknown;
      /** The body was cut at the caller's cap: it cannot be judged whole. */
      truncated?: boolean;
    };

export interface JudgeRequest {
  route: AnswerRoute;
  answer: Answer;
  token: TokenOutcome;
  /**
   * Passed checks carry no words (the console's own bank: its checks are rebuilt when its event
   * is read). The verdict is the same either way.
   */
  lean?: boolean;
}

export interface AnswerVerdict {
  ok: boolean;
  /** The check that decides: the token's first failure, else the first failed answer check. */
  failed: string | null;
  /** The deciding failure's words (null when it is a token check whose detail was not given). */
  detail: string | null;
  /** The answer checks, in order. */
  checks: Check[];
  /** Remarks beside the verdict: a non-JSON Content-Type, a null optional member, and the answer's own failures when a token check decided. */
  warnings: string[];
  /** The answer's JSON object (the user data) when `json` passed, else null. */
  body: Record<string, unknown> | null;
}

/** Members each route's answer must carry, after the shared checks (spec 2.5, 2.6). */
const ROUTE_CHECKS: Record<AnswerRoute, readonly AnswerCheckId[]> = {
  '/user_auth': ['external_id', 'external_id_length', 'key', 'phone', 'fields'],
  '/key': ['key'],
  '/external_id': ['external_id', 'external_id_length'],
};

/** What a 200 carries on each route, for the status words. */
const WHAT: Record<AnswerRoute, string> = {
  '/user_auth': 'the user data (spec 2.5)',
  '/key': '{key} (spec 2.6)',
  '/external_id': '{external_id} (spec 2.6)',
};

/** Lean mode's bare pass per check: shared and frozen, so a passing answer allocates little. */
const PASSED = Object.fromEntries(
  Object.keys(ANSWER_TITLES).map((id) => [id, Object.freeze(answerCheck(id as AnswerCheckId, 'passed', ''))]),
) as Record<AnswerCheckId, Check>;

/**
 * Judges one answer to a callback.
 *
 * @example
 * const answer = { arrived: true, status: 200, durationMs: 12, contentType: 'text/plain',
 *   body: '{"external_id":"e1","key":"k"}' } as const;
 * const v = judgeAnswer({ route: '/user_auth', token: { passed: true }, answer });
 * v.failed;   // 'phone'
 * v.detail;   // 'phone missing'
 * v.warnings; // ['Content-Type is "text/plain", not application/json: …']
 */
export function judgeAnswer(request: JudgeRequest): AnswerVerdict {
  const { route, answer, token } = request;
  const lean = request.lean === true;
  const checks: Check[] = [];
  const warnings: string[] = [];
  let body: Record<string, unknown> | null = null;
  const add = (id: AnswerCheckId, f: Finding) => {
    checks.push(
      lean && f.status === 'passed' && f.detail === '' ? PASSED[id] : answerCheck(id, f.status, f.detail),
    );
    if (f.warning) warnings.push(f.warning);
  };
  const skipFrom = (ids: readonly AnswerCheckId[], why: string) => {
    for (const id of ids) checks.push(answerCheck(id, 'skipped', `not judged: ${why}`));
  };
  const after = ROUTE_CHECKS[route];

  if (!answer.arrived) {
    add('reachable', { status: 'failed', detail: `no answer: ${answer.why}` });
    skipFrom(['budget', 'status', 'json', ...after], 'no answer arrived');
    return verdictOf(token, checks, warnings, null);
  }
  add(
    'reachable',
    lean ? LEAN_PASS : { status: 'passed', detail: `an HTTP answer arrived (${answer.status})` },
  );
  const late = overBudget(answer.durationMs);
  add(
    'budget',
    lean && !late
      ? LEAN_PASS
      : { status: late ? 'failed' : 'passed', detail: budgetDetail(answer.durationMs) },
  );
  add('status', judgeStatus(route, answer.status, token, lean));

  if (!token.passed) {
    skipFrom(['json', ...after], `the token failed ${token.failed} (a 401 carries no data)`);
  } else if (answer.status !== 200) {
    skipFrom(['json', ...after], `the answer is ${answer.status}, not 200`);
  } else {
    const parsed = parseBody(answer);
    if (!parsed.ok) {
      add('json', { status: 'failed', detail: parsed.why });
      skipFrom(after, 'the body is not a JSON object');
    } else {
      body = parsed.value;
      add('json', jsonFinding(body, answer.contentType, lean));
      for (const id of after) add(id, memberFinding(id, body, lean));
    }
  }
  return verdictOf(token, checks, warnings, body);
}

function memberFinding(id: AnswerCheckId, body: Record<string, unknown>, lean: boolean): Finding {
  switch (id) {
    case 'external_id':
    case 'phone':
      return requiredString(body, id, lean);
    case 'key':
      return requiredString(body, 'key', lean, true);
    case 'external_id_length':
      return externalIdLength(body, lean);
    default:
      return optionalFields(body, lean);
  }
}

/** Spec 4.2, 5.6, 7: 200 when every check passes, 401 when one fails. */
function judgeStatus(route: AnswerRoute, s: number, token: TokenOutcome, lean: boolean): Finding {
  if (token.passed) {
    if (s === 200) return lean ? LEAN_PASS : { status: 'passed', detail: 'answered 200' };
    return {
      status: 'failed',
      detail:
        s === 401
          ? 'answered 401 to a token that passes every check: the bank refused a valid service token (does it trust the service JWKS, and know this obj and sub?)'
          : `answered ${s}, not 200: spec 4.2 expects 200 with ${WHAT[route]} when every check passes`,
    };
  }
  const failed = token.failed;
  if (s === 401) return { status: 'passed', detail: `answered 401 to a token that fails ${failed}` };
  return {
    status: 'failed',
    detail:
      s >= 200 && s < 300
        ? `answered ${s} to a token that fails ${failed}: the bank accepts a token it must refuse (spec 5.6, 7: 401)`
        : `answered ${s} to a token that fails ${failed}, not 401 (spec 5.6, 7)`,
  };
}

/** The body as a JSON object, or why it is not one. */
function parseBody(
  answer: Extract<Answer, { arrived: true }>,
): { ok: true; value: Record<string, unknown> } | { ok: false; why: string } {
  let value = answer.value;
  if (value === undefined) {
    if (answer.truncated) return { ok: false, why: 'the body is too large to judge (cut short)' };
    const raw = answer.body;
    if (raw === null || raw.length === 0) return { ok: false, why: 'the body is empty' };
    let text: string;
    try {
      text = typeof raw === 'string' ? raw : new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      return { ok: false, why: 'the body is not valid UTF-8' };
    }
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { ok: false, why: `the body is not JSON (${err instanceof Error ? err.message : String(err)})` };
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, why: `the body is JSON but ${describeValue(value)}, not an object` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * isJsonContentType, remembering the last type asked: the console's own bank sends one
 * Content-Type on every answer, and splitting it again per callback is work for nothing.
 */
let lastType: string | null | undefined;
let lastIsJson = false;
function isJsonType(type: string | null | undefined): boolean {
  if (type !== lastType) {
    lastType = type;
    lastIsJson = isJsonContentType(type ?? undefined);
  }
  return lastIsJson;
}

/** A JSON object passes whatever its Content-Type; a non-JSON one is a warning (DESIGN.md). */
function jsonFinding(body: Record<string, unknown>, type: string | null | undefined, lean: boolean): Finding {
  const warning = isJsonType(type)
    ? undefined
    : type
      ? `Content-Type is ${JSON.stringify(type)}, not application/json: the body is a JSON object, so it passes, but a strict client may not read it`
      : 'no Content-Type: the body is a JSON object, so it passes, but send application/json';
  if (lean && !warning) return LEAN_PASS;
  const n = Object.keys(body).length;
  const words = `a JSON object with ${n} member${n === 1 ? '' : 's'}`;
  return {
    status: 'passed',
    detail: warning ? `${words}; ${warning}` : words,
    ...(warning ? { warning } : {}),
  };
}

function verdictOf(
  token: TokenOutcome,
  checks: Check[],
  warnings: string[],
  body: Record<string, unknown> | null,
): AnswerVerdict {
  if (!token.passed) {
    // DESIGN.md: a token check that failed first decides; the answer's own failures (over the
    // budget, a 200 to a token it must refuse) are warnings beside it.
    const beside = checks.filter((c) => c.status === 'failed').map((c) => c.detail);
    return {
      ok: false,
      failed: token.failed,
      detail: token.detail ?? null,
      checks,
      warnings: [...beside, ...warnings],
      body,
    };
  }
  const first = checks.find((c) => c.status === 'failed') ?? null;
  return {
    ok: first === null,
    failed: first?.id ?? null,
    detail: first?.detail ?? null,
    checks,
    warnings,
    body,
  };
}

/**
 * An outgoing exchange (http/exchange.ts) as the judge's answer: what forward mode, the sandbox's
 * sign-in and the conformance runner received.
 */
export function answerOfExchange(result: ExchangeResult, durationMs = result.durationMs): Answer {
  if (!result.ok) {
    const why =
      result.connected && result.phase !== 'timeout'
        ? `${result.message} (connected in ${result.connectMs ?? '?'} ms, then no complete answer)`
        : result.message;
    return { arrived: false, durationMs, why };
  }
  return {
    arrived: true,
    status: result.status,
    durationMs,
    contentType: result.headers['content-type'] ?? null,
    body: result.body,
    truncated: result.truncated,
  };
}
