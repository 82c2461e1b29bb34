/**
 * X-Session-ID verification on the bank's callbacks, in DESIGN.md "Bank endpoints" order, the
 * first failure decisive: present; a compact JWS; alg allowed (never none, never HMAC); kid in
 * the service JWKS; signature; exp, then iat (60 s leeway); flow = sign-in; obj a known customer;
 * sub (the customer's, else a sub the console signed for this obj within the hour, else any
 * non-empty sub with a warning).
 *
 * Threat model: the token is attacker-controlled. The alg is judged by policy.ts before any key
 * is touched, and the key is chosen from the service's JWKS by kid and verified for that one
 * alg only (algorithm confusion: an HS256 token "signed" with the service's public key never
 * reaches a verifier). Every rule comes from electron/core/jwt; nothing here re-decides policy.
 */
import type { Check, CheckId } from '../../contract/schemas/inspector';
import type { Customer } from '../../contract/schemas/bank';
import {
  checkAlg,
  checkExp,
  checkFlow,
  checkIat,
  checkKid,
  checkObj,
  checkStructure,
  checkSub,
  decodeCompact,
  judgeAlg,
  makeCheck,
  verifySignature,
  type DecodedToken,
} from '../jwt';
import type { JwksCache, JwksState } from './jwks-cache';

/** The bank's check ids, in order (`present` precedes the token checks). */
export const BANK_CHECK_IDS = [
  'present',
  'structure',
  'alg',
  'kid',
  'signature',
  'exp',
  'iat',
  'flow',
  'obj',
  'sub',
] as const;
export type BankCheckId = (typeof BANK_CHECK_IDS)[number];
const TOKEN_CHECKS: CheckId[] = ['structure', 'alg', 'kid', 'signature', 'exp', 'iat', 'flow', 'obj', 'sub'];

export interface Verdict {
  ok: boolean;
  /** Id of the first failed check, or null. */
  failed: BankCheckId | null;
  detail: string;
  /** The token checks (present has no Check: with no header, every token check is skipped). */
  checks: Check[];
  decoded: DecodedToken | null;
  customer: Customer | null;
  obj: string | null;
  sub: string | null;
  warning: string | null;
  jwks: JwksState;
}

export interface VerifyDeps {
  jwks: JwksCache;
  customer: (obj: string) => Customer | undefined;
  subsFor: (obj: string) => Promise<string[]>;
  nowSeconds: () => number;
  /** What to configure when no JWKS URL is known. */
  noUrlHint: string;
}

const claim = (payload: Record<string, unknown> | null, name: string): string | null => {
  const v = payload?.[name];
  return typeof v === 'string' ? v : null;
};

export async function verifySessionToken(
  header: string | string[] | undefined,
  deps: VerifyDeps,
): Promise<Verdict> {
  const checks: Check[] = [];
  let jwksState: JwksState | null = null;
  const base = {
    decoded: null as DecodedToken | null,
    customer: null as Customer | null,
    warning: null as string | null,
  };

  const finish = (failed: Check | null, detail?: string): Verdict => {
    if (failed) {
      const done = new Set(checks.map((c) => c.id));
      for (const id of TOKEN_CHECKS) {
        if (!done.has(id)) checks.push(makeCheck(id, 'skipped', `not checked: ${failed.id} failed first`));
      }
    }
    const payload = base.decoded?.payload ?? null;
    return {
      ok: failed === null,
      failed: failed ? (failed.id as BankCheckId) : null,
      detail: detail ?? failed?.detail ?? 'all checks passed',
      checks,
      decoded: base.decoded,
      customer: base.customer,
      obj: claim(payload, 'obj'),
      sub: claim(payload, 'sub'),
      warning: base.warning,
      jwks: jwksState ?? deps.jwks.state(),
    };
  };
  const fail = (check: Check) => {
    checks.push(check);
    return finish(check);
  };

  // present
  const token = Array.isArray(header) ? header[0] : header;
  if (token === undefined || token.trim() === '') {
    for (const id of TOKEN_CHECKS)
      checks.push(makeCheck(id, 'skipped', 'not checked: no X-Session-ID header'));
    return {
      ...finish(null),
      ok: false,
      failed: 'present',
      detail:
        token === undefined
          ? 'no X-Session-ID header: the service sends its JWT there on every callback (spec 4.2)'
          : 'the X-Session-ID header is empty',
    };
  }

  // structure
  const decoded = decodeCompact(token.trim());
  base.decoded = decoded;
  const structure = checkStructure(decoded);
  if (structure.status !== 'passed') return fail(structure);
  checks.push(structure);

  // alg
  const alg = checkAlg(decoded);
  if (alg.status !== 'passed') return fail(alg);
  checks.push(alg);
  const verdict = judgeAlg(decoded.header?.alg);
  if (!verdict.ok) return fail(makeCheck('alg', 'failed', verdict.message));

  // kid (an unknown kid refreshes the JWKS once, rate-limited)
  let snap = await deps.jwks.get();
  jwksState = snap.state;
  if (!snap.set) {
    const why =
      snap.state.url === null
        ? `no service JWKS URL is configured: ${deps.noUrlHint}`
        : `the service JWKS at ${snap.state.url} could not be loaded: ${snap.state.error ?? 'unknown error'}`;
    return fail(makeCheck('kid', 'failed', why));
  }
  let kid = checkKid(decoded, { set: snap.set, error: null });
  if (kid.status !== 'passed' && typeof decoded.header?.kid === 'string' && decoded.header.kid !== '') {
    snap = await deps.jwks.refreshForUnknownKid();
    jwksState = snap.state;
    if (snap.set) kid = checkKid(decoded, { set: snap.set, error: null });
    if (kid.status !== 'passed' && snap.state.stale) {
      kid = {
        ...kid,
        detail: `${kid.detail} (the JWKS could not be refreshed: ${snap.state.error ?? ''}; served from cache)`,
      };
    }
  }
  if (kid.status !== 'passed' || !snap.set) return fail(kid);
  checks.push(kid);

  // signature
  const kidValue = typeof decoded.header?.kid === 'string' ? decoded.header.kid : undefined;
  const key = await deps.jwks.resolveKey(snap.set, kidValue, verdict.alg);
  if (typeof key === 'string') return fail(makeCheck('signature', 'failed', key));
  const sig = await verifySignature(token.trim(), key.key, verdict.alg, key.label);
  if (!sig.ok) return fail(makeCheck('signature', 'failed', sig.message));
  checks.push(makeCheck('signature', 'passed', `verified with ${key.label} (${verdict.alg})`));

  const payload = decoded.payload as Record<string, unknown>;
  const now = deps.nowSeconds();
  for (const check of [checkExp(payload, now), checkIat(payload, now), checkFlow(payload)]) {
    if (check.status !== 'passed') return fail(check);
    checks.push(check);
  }

  // obj: present, a string, and a known customer
  const objShape = checkObj(payload);
  if (objShape.status !== 'passed') return fail(objShape);
  const obj = payload.obj as string;
  const customer = deps.customer(obj);
  if (!customer) {
    return fail(
      makeCheck(
        'obj',
        'failed',
        `obj ${JSON.stringify(obj)} is not a known customer: add it to the bank's customers (Bank page, or --users)`,
      ),
    );
  }
  base.customer = customer;
  checks.push(makeCheck('obj', 'passed', `obj ${JSON.stringify(obj)} is a known customer`));

  // sub
  if (customer.sub !== undefined) {
    const sub = checkSub(payload, customer.sub);
    if (sub.status !== 'passed') {
      return fail({ ...sub, detail: `${sub.detail} (the customer's sub)` });
    }
    checks.push({ ...sub, detail: `${sub.detail}: the customer's sub` });
    return finish(null);
  }
  const shape = checkSub(payload);
  if (shape.status !== 'passed') return fail(shape);
  const sub = payload.sub as string;
  let signed: string[] = [];
  try {
    signed = await deps.subsFor(obj);
  } catch (err) {
    base.warning = `the console's signed pairs could not be read (${err instanceof Error ? err.message : String(err)}); sub not compared`;
  }
  if (signed.length > 0) {
    if (!signed.includes(sub)) {
      return fail(
        makeCheck(
          'sub',
          'failed',
          `sub ${JSON.stringify(sub)} is not a sub the console signed for obj ${JSON.stringify(obj)} within the last hour (${signed.map((s) => JSON.stringify(s)).join(', ')})`,
        ),
      );
    }
    checks.push(
      makeCheck(
        'sub',
        'passed',
        `sub ${JSON.stringify(sub)}: the console signed a JWT for this obj/sub within the last hour`,
      ),
    );
    return finish(null);
  }
  base.warning ??=
    'sub not checked: the customer has no sub and the console signed no JWT for this obj within the last hour';
  checks.push(makeCheck('sub', 'passed', `sub ${JSON.stringify(sub)} is non-empty; ${base.warning}`));
  return finish(null);
}
