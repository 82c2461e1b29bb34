/**
 * Verifying a bank's CX-Authorization JWT the way the service does (spec 2.4, 5; DESIGN.md
 * "Sandbox service"): against a JWK registered for THAT counterparty, chosen by kid; alg in the
 * allowed RSA list (`none` and HMAC refused by name before any key is touched); flow sign-in;
 * obj and sub non-empty strings; iat not in the future and exp in the future, with 60 s
 * leeway; a lifetime exp - iat above zero and at most the configured maximum (1 h).
 *
 * Every service endpoint and the sign-in flow use this one verifier. It is on the hot path of
 * the authenticate endpoint, so it imports each registered JWK once per alg (cached by the
 * registration object itself, so a replaced JWK is never verified with its old key) and never
 * caches a verdict.
 */
import { importJWK, type CryptoKey, type JWK } from 'jose';
import type { Counterparty, RegisteredJwk } from '../../contract/schemas/sandbox';
import {
  checkExp,
  checkFlow,
  checkIat,
  checkLifetime,
  checkObj,
  checkSub,
  decodeCompact,
  judgeAlg,
  LEEWAY_SECONDS,
  lifetimeSeconds,
  verifySignature,
  type AllowedAlg,
} from '../jwt';
import { describeType } from '../jwt/policy';

/** The claims a verified bank JWT carries (spec 2.4). */
export interface BankClaims {
  flow: string;
  obj: string;
  sub: string;
  iat: number;
  exp: number;
}

/** Which rule failed: the trace step / check it names. */
export type BankJwtRule =
  'header' | 'structure' | 'alg' | 'kid' | 'signature' | 'flow' | 'obj' | 'sub' | 'iat' | 'exp' | 'lifetime';

export type BankJwtVerdict =
  | { ok: true; claims: BankClaims; kid: string; jwk_guid: string; alg: AllowedAlg }
  | { ok: false; rule: BankJwtRule; detail: string };

const quote = (s: string) => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);

export class BankJwtVerifier {
  /** Imported public keys, per registration and alg. Only keys are cached, never verdicts. */
  private readonly keys = new WeakMap<RegisteredJwk, Map<string, Promise<CryptoKey>>>();

  /**
   * Judges `token` (the CX-Authorization value, undefined when the header is absent) for
   * `counterparty`. Never throws.
   *
   * @example
   * const v = await verifier.verify(cp, req.headers['cx-authorization'], Date.now(), 3600);
   * if (!v.ok) reply(401, v.detail);
   */
  async verify(
    counterparty: Counterparty,
    token: string | undefined,
    nowMs: number,
    maxLifetimeSeconds: number,
  ): Promise<BankJwtVerdict> {
    const fail = (rule: BankJwtRule, detail: string): BankJwtVerdict => ({ ok: false, rule, detail });
    if (token === undefined || token.trim() === '') {
      return fail(
        'header',
        token === undefined
          ? "no CX-Authorization header: every request to the service carries the bank's JWT in it (spec 5)"
          : 'the CX-Authorization header is empty',
      );
    }
    if (/^bearer\s/i.test(token)) {
      return fail('header', 'CX-Authorization holds the JWT itself, without a "Bearer " prefix');
    }
    const decoded = decodeCompact(token.trim());
    if (!decoded.ok || !decoded.header || !decoded.payload) {
      return fail('structure', `the JWT is malformed: ${decoded.problems.map((p) => p.message).join('; ')}`);
    }
    const { header, payload } = decoded;

    const alg = judgeAlg(header.alg);
    if (!alg.ok) return fail('alg', alg.message);

    const kid = header.kid;
    if (kid === undefined) {
      return fail(
        'kid',
        "the JWT header has no kid: the service chooses the counterparty's registered key by kid",
      );
    }
    if (typeof kid !== 'string')
      return fail('kid', `the JWT header's kid is ${describeType(kid)}, not a string`);
    const registered = counterparty.jwks.find((r) => r.jwk.kid === kid);
    if (!registered) {
      const kids = counterparty.jwks.map((r) => quote(String(r.jwk.kid))).join(', ');
      return fail(
        'kid',
        `kid ${quote(kid)} is not registered for this counterparty (registered kids: ${kids || 'none'})`,
      );
    }
    const label = `the key registered as kid ${quote(kid)} (jwk_guid ${registered.jwk_guid})`;
    if (registered.jwk.alg !== undefined && registered.jwk.alg !== alg.alg) {
      return fail('alg', `the JWT says alg ${alg.alg}, but ${label} is for ${String(registered.jwk.alg)}`);
    }
    let key: CryptoKey;
    try {
      key = await this.keyFor(registered, alg.alg);
    } catch (err) {
      return fail(
        'signature',
        `${label} could not be imported for ${alg.alg}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const signature = await verifySignature(token.trim(), key, alg.alg, label);
    if (!signature.ok) {
      return fail(
        'signature',
        signature.code === 'SIGNATURE_INVALID' ? `the signature ${signature.message}` : signature.message,
      );
    }

    const nowSeconds = nowMs / 1000;
    const checks = [
      checkFlow(payload),
      checkObj(payload),
      checkSub(payload),
      checkIat(payload, nowSeconds, LEEWAY_SECONDS),
      checkExp(payload, nowSeconds, LEEWAY_SECONDS),
    ];
    for (const check of checks) {
      if (check.status === 'failed') {
        const detail = check.detail.startsWith(`${check.id} `)
          ? check.detail
          : `${check.id}: ${check.detail}`;
        return fail(check.id as BankJwtRule, detail);
      }
    }
    const life = lifetimeSeconds(payload);
    if (life === null || life <= 0) {
      return fail('lifetime', `lifetime: ${checkLifetime(payload).detail}`);
    }
    if (life > maxLifetimeSeconds) {
      return fail(
        'lifetime',
        `lifetime: exp - iat is ${life} s, more than the ${maxLifetimeSeconds} s the service accepts for a bank JWT`,
      );
    }
    return {
      ok: true,
      kid,
      jwk_guid: registered.jwk_guid,
      alg: alg.alg,
      claims: {
        flow: payload.flow as string,
        obj: payload.obj as string,
        sub: payload.sub as string,
        iat: payload.iat as number,
        exp: payload.exp as number,
      },
    };
  }

  private keyFor(registered: RegisteredJwk, alg: AllowedAlg): Promise<CryptoKey> {
    let perAlg = this.keys.get(registered);
    if (!perAlg) this.keys.set(registered, (perAlg = new Map()));
    let key = perAlg.get(alg);
    if (!key) {
      key = importJWK(registered.jwk as JWK, alg).then((k) => {
        if (k instanceof Uint8Array) throw new Error('a symmetric key');
        return k;
      });
      const cached = key;
      cached.catch(() => perAlg.delete(alg)); // a failed import is retried, not remembered
      perAlg.set(alg, cached);
    }
    return key;
  }
}
