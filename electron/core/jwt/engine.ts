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
import { ENGINE_CHECK_IDS, type Check, type CheckId } from '../../contract/schemas/inspector';
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
import { decodeCompact, type DecodedToken } from './decode';
import type { KeySet } from './key-source';
import {
  describeType,
  isAllowedAlg,
  judgeAlg,
  LEEWAY_SECONDS,
  SIGN_IN_FLOW,
  type AllowedAlg,
} from './policy';
import { signedParts, verifySignature, type SignatureVerdict } from './signature';

export { ENGINE_CHECK_IDS };
export type EngineCheckId = (typeof ENGINE_CHECK_IDS)[number];

/**
 * Where the keys come from. `none`: the caller has none (the inspector without a key source:
 * kid is only required to be there, the signature is skipped); `unavailable`: the key source
 * failed to load (kid fails with why); `set`: a key set in hand; `lookup`: a key set found per
 * kid (the service JWKS client, which may fetch within the caller's budget).
 */
export type EngineKeys =
  | { kind: 'none' }
  | { kind: 'unavailable'; detail: string }
  | { kind: 'set'; set: KeySet }
  | {
      kind: 'lookup';
      forKid: (
        kid: string | undefined,
      ) =>
        | Promise<{ set: KeySet | null; detail: string | null }>
        | { set: KeySet | null; detail: string | null };
    };

/** A role's own judgement of obj or sub, after the shared one (present, a non-empty string). */
export type ClaimJudge = (
  value: string,
  payload: Record<string, unknown>,
) => { ok: boolean; detail: string } | Promise<{ ok: boolean; detail: string }>;

export interface VerifyRequest {
  /** The raw header value; undefined when the header is absent. */
  token: string | undefined;
  /** The header's name, for messages: "X-Session-ID", "CX-Authorization", or "the token". */
  header: string;
  /** Why the header matters, for the `present` failure ("the service sends its JWT there…"). */
  headerWhy?: string;
  /** The `present` failure for an empty value, when "the … header is empty" does not fit. */
  emptyDetail?: string;
  keys: EngineKeys;
  nowSeconds: number;
  /** Clock leeway on exp, iat and nbf (default 60 s). */
  leewaySeconds?: number;
  obj?: ClaimJudge;
  sub?: ClaimJudge;
  /** The sandbox's cap on exp - iat (checks.ts checkSandboxLifetime); the lifetime check runs only when given. */
  maxLifetimeSeconds?: number;
  /** Stop at the first failure (endpoints) or run every check there is input for (inspector). */
  mode: 'first-failure' | 'all';
  /**
   * Passed checks carry no detail (a callback's checks are rebuilt when its event is read), so
   * the hot path builds words only for a failure. The verdict is the same either way: a check
   * whose quick test does not pass runs in full.
   */
  lean?: boolean;
}

export interface EngineVerdict {
  ok: boolean;
  /** The first failed check, or null. */
  failed: EngineCheckId | null;
  /** The first failure's detail, or "all checks passed". */
  detail: string;
  /** Every check in order (failed-first mode: the ones after the failure are skipped). */
  checks: Check[];
  decoded: DecodedToken | null;
  /** The key that verified the signature. */
  key: { label: string } | null;
  /** The token's alg, when it is an allowed one. */
  alg: AllowedAlg | null;
  /** The key source's note (a stale JWKS, a slow host), when there is one. */
  keysNote: string | null;
}

const whole = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Lean mode's bare pass per check id: shared and frozen, so a passing check allocates nothing. */
const PASSED = Object.fromEntries(
  ENGINE_CHECK_IDS.map((id) => [id, Object.freeze(makeCheck(id, 'passed', ''))]),
) as Record<EngineCheckId, Check>;

/** A check after the first failure (first-failure mode); also how a stored callback's detail is rebuilt. */
export const notChecked = (failed: string) => `not checked: ${failed} failed first`;
/** Every token check when the header is absent or empty. */
export const notCheckedWithout = (header: string) => `not checked: no ${header}`;

/**
 * Runs the checks on a token.
 *
 * @example
 * const v = await verifyToken({ token: req.headers['x-session-id'], header: 'X-Session-ID',
 *   keys: { kind: 'set', set }, nowSeconds: Date.now() / 1000, mode: 'first-failure' });
 * if (!v.ok) reply(401, { check: v.failed, detail: v.detail });
 */
export async function verifyToken(request: VerifyRequest): Promise<EngineVerdict> {
  const checks: Check[] = [];
  const leeway = request.leewaySeconds ?? LEEWAY_SECONDS;
  const stop = request.mode === 'first-failure';
  let failed: Check | null = null;
  let decoded: DecodedToken | null = null;
  let usedKey: { label: string } | null = null;
  let keysNote: string | null = null;
  let alg: AllowedAlg | null = null;

  /** Records a check; true when the pipeline must stop here. */
  const add = (check: Check): boolean => {
    checks.push(check);
    if (check.status === 'failed' && failed === null) failed = check;
    return stop && failed !== null;
  };
  const finish = (): EngineVerdict => {
    const first = failed as Check | null;
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
      decoded,
      key: usedKey,
      alg,
      keysNote,
    };
  };

  // present
  const raw = request.token;
  // RFC 9110 §5.5: a header value loses SP and HTAB at its ends, nothing else (token-whitespace.ts).
  const token = raw === undefined ? '' : trimHttpWhitespace(raw);
  if (raw === undefined || token === '') {
    const why = request.headerWhy ? `: ${request.headerWhy}` : '';
    add(
      makeCheck(
        'present',
        'failed',
        raw === undefined
          ? `no ${request.header} header${why}`
          : (request.emptyDetail ?? `the ${request.header} header is empty`),
      ),
    );
    // Nothing else has an input.
    for (const id of ENGINE_CHECK_IDS) {
      if (id !== 'present' && (id !== 'lifetime' || request.maxLifetimeSeconds !== undefined)) {
        checks.push(makeCheck(id, 'skipped', notCheckedWithout(request.header)));
      }
    }
    return { ...finish(), checks };
  }
  add(makeCheck('present', 'passed', `${request.header} is present`));

  // Lean: a check whose quick test passes is the shared bare pass (no words, no closure, no
  // allocation); one whose quick test does not pass runs in full, so the verdict is the same.
  const lean = request.lean === true;
  const now = request.nowSeconds;

  // structure
  decoded = decodeCompact(token);
  const d = decoded;
  let structure = lean && d.ok ? PASSED.structure : checkStructure(d);
  if (structure.status === 'failed' && /^bearer\s/i.test(token)) {
    structure = {
      ...structure,
      detail: `${request.header} holds the JWT itself, without a "Bearer " prefix`,
    };
  }
  if (add(structure)) return finish();

  // alg, crit
  const header = d.header;
  if (add(lean && isAllowedAlg(header?.alg) ? PASSED.alg : checkAlg(d))) return finish();
  const noCrit = header !== null && !Object.hasOwn(header, 'crit');
  if (add(lean && noCrit ? PASSED.crit : checkCrit(d))) return finish();
  const verdict = judgeAlg(decoded.header?.alg);
  alg = verdict.ok ? verdict.alg : null;

  // kid, signature
  if (add(await kidAndSignature(request.keys, token, decoded, alg, checks))) return finish();

  // times
  const payload = decoded.payload;
  if (payload === null) {
    for (const id of ['exp', 'iat', 'nbf'] as const)
      checks.push(makeCheck(id, 'skipped', 'not checked: the payload could not be decoded (see structure)'));
  } else {
    const exp = payload.exp;
    const iat = payload.iat;
    const nbf = payload.nbf;
    const expOk = lean && whole(exp) && exp - now + leeway > 0;
    if (add(expOk ? PASSED.exp : checkExp(payload, now, leeway))) return finish();
    const iatOk = lean && whole(iat) && iat - now <= leeway;
    if (add(iatOk ? PASSED.iat : checkIat(payload, now, leeway))) return finish();
    const nbfOk = lean && whole(nbf) && nbf - now <= leeway;
    if (add(nbfOk ? PASSED.nbf : checkNbf(payload, now, leeway))) return finish();
    if (
      request.maxLifetimeSeconds !== undefined &&
      add(checkSandboxLifetime(payload, request.maxLifetimeSeconds))
    ) {
      return finish();
    }
    // claims
    if (add(lean && payload.flow === SIGN_IN_FLOW ? PASSED.flow : checkFlow(payload))) return finish();
    if (add(await judgeClaim('obj', payload, request.obj))) return finish();
    if (add(await judgeClaim('sub', payload, request.sub))) return finish();
  }
  if (payload === null) {
    for (const id of ['flow', 'obj', 'sub'] as const)
      checks.push(makeCheck(id, 'skipped', 'not checked: the payload could not be decoded (see structure)'));
  }
  return finish();

  async function kidAndSignature(
    keys: EngineKeys,
    jws: string,
    d: DecodedToken,
    tokenAlg: AllowedAlg | null,
    list: Check[],
  ): Promise<Check> {
    const header = d.form === 'jws' ? d.header : null;
    if (!header) {
      const why = 'not checked: the header could not be decoded (see structure)';
      list.push(makeCheck('kid', 'skipped', why));
      return makeCheck('signature', 'skipped', why);
    }
    const kidValue = header.kid;
    let set: KeySet | null = null;
    let kidCheck: Check;
    if (kidValue !== undefined && typeof kidValue !== 'string') {
      kidCheck = makeCheck('kid', 'failed', `kid is ${describeType(kidValue)}, not a string`);
    } else if (typeof kidValue === 'string' && kidValue.trim() === '') {
      kidCheck = makeCheck('kid', 'failed', 'kid is an empty string');
    } else if (kidValue === undefined) {
      kidCheck = makeCheck('kid', 'failed', "the header has no kid: the service's keys are looked up by kid");
    } else if (keys.kind === 'none') {
      kidCheck = makeCheck(
        'kid',
        'passed',
        `kid ${JSON.stringify(kidValue)} present (no key set given to look it up in)`,
      );
    } else if (keys.kind === 'unavailable') {
      kidCheck = makeCheck('kid', 'failed', `kid ${JSON.stringify(kidValue)} not looked up: ${keys.detail}`);
    } else {
      let note: string | null = null;
      if (keys.kind === 'set') set = keys.set;
      else {
        const found = await keys.forKid(kidValue);
        set = found.set;
        note = found.detail;
      }
      keysNote = note;
      if (!set) {
        kidCheck = makeCheck('kid', 'failed', note ?? 'no key set to look the kid up in');
      } else {
        const found = set.lookup(kidValue);
        kidCheck = found.found
          ? makeCheck(
              'kid',
              'passed',
              found.matchedBy === 'kid'
                ? found.message
                : `kid ${JSON.stringify(kidValue)} present; ${found.message}`,
            )
          : makeCheck('kid', 'failed', note ? `${found.message} (${note})` : found.message);
      }
    }
    list.push(kidCheck);
    if (kidCheck.status === 'failed') {
      if (failed === null) failed = kidCheck;
      return makeCheck('signature', 'skipped', notChecked('kid'));
    }
    if (tokenAlg === null) {
      return makeCheck(
        'signature',
        'skipped',
        'not verified: the alg is refused (see alg); unsigned and HMAC tokens are never verified, whatever the key',
      );
    }
    if (keys.kind === 'none' || !set) {
      return makeCheck(
        'signature',
        'skipped',
        'no key to verify with: paste a JWKS, JWK or PEM public key, or give a JWKS URL',
      );
    }
    if (d.problems.some((p) => p.segment === 'signature')) {
      return makeCheck('signature', 'failed', 'the signature segment is not base64url (see structure)');
    }
    const parts = signedParts(jws);
    if (!parts)
      return makeCheck('signature', 'failed', 'the signature segment is empty: the token is not signed');
    const candidates = set.candidates(kidValue as string, tokenAlg);
    if (!candidates.ok) return makeCheck('signature', 'failed', candidates.message);
    let firstFailure: SignatureVerdict | null = null;
    for (const k of candidates.keys) {
      const v = await verifySignature(parts, k.key, tokenAlg, k.label);
      if (v.ok) {
        usedKey = { label: k.label };
        const among = candidates.ambiguous ? ` (one of ${candidates.keys.length} keys under this kid)` : '';
        return makeCheck('signature', 'passed', `verified with ${k.label}${among} (${tokenAlg})`);
      }
      firstFailure ??= v;
    }
    const message = firstFailure && !firstFailure.ok ? firstFailure.message : 'does not verify';
    if (candidates.ambiguous) {
      return makeCheck(
        'signature',
        'failed',
        `the signature verifies with none of the ${candidates.keys.length} keys under kid ${JSON.stringify(kidValue)}: the kid is ambiguous in the JWKS (it appears more than once), and no key under it signed this token`,
      );
    }
    return makeCheck('signature', 'failed', message);
  }
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
export type { CheckId };
