/**
 * The verification engine: the one place that decides whether a token is valid (DESIGN.md
 * "Bank endpoints": "One engine decides every verdict"). The bank endpoints (X-Session-ID), the
 * sandbox's authenticate, sign-in and jwk endpoints (CX-Authorization), the inspector (page and
 * `jwt inspect`) and the conformance runner's expectations all call {@link verifyToken}. A
 * caller chooses only which inputs it has (keys, what obj and sub must be, a lifetime cap) and
 * whether to stop at the first failure; it never re-decides a rule.
 *
 * The checks run in this order, the first failure decisive: present, structure, alg, crit,
 * kid, signature, exp, iat, nbf, (lifetime, the sandbox's), flow, obj, sub.
 *
 * Threat model: the token is attacker-controlled. The alg is judged before any key is touched
 * (never `none`, never HMAC: no algorithm confusion); `crit` is refused (RFC 7515 §4.1.11: the
 * console understands no extension); the key comes only from the caller's key source, chosen by
 * kid (`jku`, `x5u`, `jwk` and `x5c` in the header are never used to find a key); the key
 * rules of rsa.ts were applied when the key set was built; times must be integers (spec 2.4).
 * Every kind of bad input becomes a failed check; nothing here throws.
 */
import type { Check } from '../../contract/schemas/inspector';
import { trimHttpWhitespace } from '../../contract/schemas/token-whitespace';
import {
  checkAlg,
  checkCrit,
  checkExp,
  checkFlow,
  checkIat,
  checkNbf,
  checkObj,
  checkSandboxLifetime,
  checkStructure,
  checkSub,
  makeCheck,
} from './checks';
import { decodeCompact } from './decode';
import { checkKid, checkSignature, notChecked } from './engine-keys';
import {
  type ClaimJudge,
  ENGINE_CHECK_IDS,
  type EngineCheckId,
  type EngineRun,
  type EngineVerdict,
  type VerifyRequest,
} from './engine-types';
import { isAllowedAlg, judgeAlg, LEEWAY_SECONDS, SIGN_IN_FLOW } from './policy';

export { ENGINE_CHECK_IDS, notChecked };
export type { ClaimJudge, EngineCheckId, EngineKeys, EngineVerdict, VerifyRequest } from './engine-types';

const whole = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Lean mode's bare pass per check id: shared and frozen, so a passing check allocates nothing. */
const PASSED = Object.fromEntries(
  ENGINE_CHECK_IDS.map((id) => [id, Object.freeze(makeCheck(id, 'passed', ''))]),
) as Record<EngineCheckId, Check>;

/** Every token check when the header is absent or empty. */
export const notCheckedWithout = (header: string) => `not checked: no ${header}`;

const NO_PAYLOAD = 'not checked: the payload could not be decoded (see structure)';

/**
 * Runs the checks on a token, one phase at a time: present, the header (structure, alg, crit),
 * the key (kid, signature), the times (exp, iat, nbf, lifetime), the claims (flow, obj, sub).
 *
 * @example
 * const v = await verifyToken({ token: req.headers['x-session-id'], header: 'X-Session-ID',
 *   keys: { kind: 'set', set }, nowSeconds: Date.now() / 1000, mode: 'first-failure' });
 * if (!v.ok) reply(401, { check: v.failed, detail: v.detail });
 */
export async function verifyToken(request: VerifyRequest): Promise<EngineVerdict> {
  const run: EngineRun = {
    request,
    checks: [],
    stop: request.mode === 'first-failure',
    failed: null,
    decoded: null,
    alg: null,
    set: null,
    usedKey: null,
    keysNote: null,
  };
  const token = checkPresent(run);
  if (token === null) return finish(run);
  if (checkHeader(run, token) || (await checkKey(run, token))) return finish(run);
  const payload = run.decoded?.payload ?? null;
  if (payload === null) {
    for (const id of ['exp', 'iat', 'nbf', 'flow', 'obj', 'sub'] as const) {
      run.checks.push(makeCheck(id, 'skipped', NO_PAYLOAD));
    }
    return finish(run);
  }
  if (!checkTimes(run, payload)) await checkClaims(run, payload);
  return finish(run);
}

/** Records a check; true when the run must stop here. */
function add(run: EngineRun, check: Check): boolean {
  run.checks.push(check);
  if (check.status === 'failed' && run.failed === null) run.failed = check;
  return run.stop && run.failed !== null;
}

/** The verdict: after a failure, every check not run is listed as skipped because of it. */
function finish(run: EngineRun): EngineVerdict {
  const first = run.failed;
  const { checks, request } = run;
  if (first) {
    const done = new Set(checks.map((c) => c.id));
    for (const id of ENGINE_CHECK_IDS) {
      if (!done.has(id) && (id !== 'lifetime' || request.maxLifetimeSeconds !== undefined)) {
        checks.push(makeCheck(id, 'skipped', notChecked(first.id)));
      }
    }
  }
  return {
    ok: first === null,
    failed: first ? (first.id as EngineCheckId) : null,
    detail: first?.detail ?? 'all checks passed',
    checks,
    decoded: run.decoded,
    key: run.usedKey,
    alg: run.alg,
    keysNote: run.keysNote,
  };
}

/**
 * present: the token, trimmed of SP and HTAB at its ends (RFC 9110 §5.5, token-whitespace.ts),
 * or null when there is none (then every other check is skipped: nothing has an input).
 */
function checkPresent(run: EngineRun): string | null {
  const { request, checks } = run;
  const raw = request.token;
  const token = raw === undefined ? '' : trimHttpWhitespace(raw);
  if (raw !== undefined && token !== '') {
    add(run, makeCheck('present', 'passed', `${request.header} is present`));
    return token;
  }
  const why = request.headerWhy ? `: ${request.headerWhy}` : '';
  const detail =
    raw === undefined
      ? `no ${request.header} header${why}`
      : (request.emptyDetail ?? `the ${request.header} header is empty`);
  add(run, makeCheck('present', 'failed', detail));
  for (const id of ENGINE_CHECK_IDS) {
    if (id !== 'present' && (id !== 'lifetime' || request.maxLifetimeSeconds !== undefined)) {
      checks.push(makeCheck(id, 'skipped', notCheckedWithout(request.header)));
    }
  }
  return null;
}

/**
 * structure, alg, crit. Lean: a check whose quick test passes is the shared bare pass (no words,
 * no closure, no allocation); one whose quick test does not pass runs in full, so the verdict is
 * the same. True when the run must stop.
 */
function checkHeader(run: EngineRun, token: string): boolean {
  const lean = run.request.lean === true;
  const d = (run.decoded = decodeCompact(token));
  let structure = lean && d.ok ? PASSED.structure : checkStructure(d);
  if (structure.status === 'failed' && /^bearer\s/i.test(token)) {
    structure = {
      ...structure,
      detail: `${run.request.header} holds the JWT itself, without a "Bearer " prefix`,
    };
  }
  if (add(run, structure)) return true;
  const header = d.header;
  if (add(run, lean && isAllowedAlg(header?.alg) ? PASSED.alg : checkAlg(d))) return true;
  const noCrit = header !== null && !Object.hasOwn(header, 'crit');
  if (add(run, lean && noCrit ? PASSED.crit : checkCrit(d))) return true;
  const verdict = judgeAlg(header?.alg);
  run.alg = verdict.ok ? verdict.alg : null;
  return false;
}

/** kid, then signature (engine-keys.ts). True when the run must stop. */
async function checkKey(run: EngineRun, jws: string): Promise<boolean> {
  const d = run.decoded;
  const header = d?.form === 'jws' ? d.header : null;
  if (!header) {
    const why = 'not checked: the header could not be decoded (see structure)';
    run.checks.push(makeCheck('kid', 'skipped', why));
    return add(run, makeCheck('signature', 'skipped', why));
  }
  const kid = await checkKid(run, header.kid);
  run.checks.push(kid);
  if (kid.status === 'failed') {
    run.failed ??= kid;
    return add(run, makeCheck('signature', 'skipped', notChecked('kid')));
  }
  return add(run, await checkSignature(run, jws, header.kid as string));
}

/** exp, iat, nbf with the leeway, then the sandbox's lifetime cap when given. True when the run must stop. */
function checkTimes(run: EngineRun, payload: Record<string, unknown>): boolean {
  const { request } = run;
  const lean = request.lean === true;
  const now = request.nowSeconds;
  const leeway = request.leewaySeconds ?? LEEWAY_SECONDS;
  const { exp, iat, nbf } = payload;
  const expOk = lean && whole(exp) && exp - now + leeway > 0;
  if (add(run, expOk ? PASSED.exp : checkExp(payload, now, leeway))) return true;
  const iatOk = lean && whole(iat) && iat - now <= leeway;
  if (add(run, iatOk ? PASSED.iat : checkIat(payload, now, leeway))) return true;
  const nbfOk = lean && whole(nbf) && nbf - now <= leeway;
  if (add(run, nbfOk ? PASSED.nbf : checkNbf(payload, now, leeway))) return true;
  const cap = request.maxLifetimeSeconds;
  return cap !== undefined && add(run, checkSandboxLifetime(payload, cap));
}

/** flow, then obj and sub: the shared shape rules, then the role's own judges. */
async function checkClaims(run: EngineRun, payload: Record<string, unknown>): Promise<void> {
  const lean = run.request.lean === true;
  if (add(run, lean && payload.flow === SIGN_IN_FLOW ? PASSED.flow : checkFlow(payload))) return;
  if (add(run, await judgeClaim('obj', payload, run.request.obj))) return;
  add(run, await judgeClaim('sub', payload, run.request.sub));
}

async function judgeClaim(
  id: 'obj' | 'sub',
  payload: Record<string, unknown>,
  judge: ClaimJudge | undefined,
): Promise<Check> {
  const shape = id === 'obj' ? checkObj(payload) : checkSub(payload);
  if (shape.status !== 'passed' || !judge) return shape;
  const value = payload[id] as string;
  const r = await judge(value, payload);
  return makeCheck(id, r.ok ? 'passed' : 'failed', r.detail);
}

/** A judge that wants the claim to equal `expected` (the inspector's --obj/--sub). */
export function equalsJudge(id: 'obj' | 'sub', expected: string): ClaimJudge {
  return (value) =>
    value === expected
      ? { ok: true, detail: `${id} is ${JSON.stringify(value)}, as expected` }
      : {
          ok: false,
          detail: `${id} is ${JSON.stringify(value)}, but ${JSON.stringify(expected)} was expected`,
        };
}

/** The check ids a role's verdict can name, for schemas and tests. */
export type { CheckId } from '../../contract/schemas/inspector';
