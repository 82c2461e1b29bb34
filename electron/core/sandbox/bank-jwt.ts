/**
 * Verifying a bank's CX-Authorization JWT the way the service does (spec 2.4, 5; DESIGN.md
 * "Sandbox service"): the one engine (electron/core/jwt/engine.ts) with the sandbox's inputs:
 * the JWKs registered for THAT counterparty (chosen by kid), obj and sub non-empty strings (the
 * sandbox has no customer directory), and a lifetime exp - iat of at most the configured
 * maximum (1 h); a lifetime of zero or less is judged by exp, with advice (DESIGN.md). Every
 * service endpoint and the sign-in flow use this one verifier.
 *
 * It is on the hot path of the authenticate endpoint, so the registered JWKs become a key set
 * once per registration list (a replaced or added JWK makes a new list, so a replaced key is
 * never verified with its old material), and no verdict is ever cached.
 */
import type { Counterparty, RegisteredJwk } from '../../contract/schemas/sandbox';
import { keySetFromJwks, verifyToken, type AllowedAlg, type EngineCheckId, type KeySet } from '../jwt';

/** The claims a verified bank JWT carries (spec 2.4). */
export interface BankClaims {
  flow: string;
  obj: string;
  sub: string;
  iat: number;
  exp: number;
}

/** Which rule failed: the engine's check id. */
export type BankJwtRule = EngineCheckId;

export type BankJwtVerdict =
  | {
      ok: true;
      claims: BankClaims;
      kid: string;
      jwk_guid: string;
      alg: AllowedAlg;
      /**
       * What the lifetime check advises on a token it passed (a zero or negative lifetime is
       * judged by exp, never refused: checks.ts shortLifetimeNote), for a trace's detail; else null.
       */
      advice: string | null;
    }
  | { ok: false; rule: BankJwtRule; detail: string };

export class BankJwtVerifier {
  /** The key set of a counterparty's registrations, per registration list. Keys only, never verdicts. */
  private readonly sets = new WeakMap<RegisteredJwk[], KeySet>();

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
    const v = await verifyToken({
      token,
      header: 'CX-Authorization',
      headerWhy: "every request to the service carries the bank's JWT in it (spec 5)",
      keys: { kind: 'set', set: this.setFor(counterparty) },
      nowSeconds: nowMs / 1000,
      maxLifetimeSeconds,
      mode: 'first-failure',
    });
    if (!v.ok || !v.decoded?.payload || !v.decoded.header || v.alg === null) {
      const rule = v.failed ?? 'structure';
      const detail =
        v.detail.startsWith(`${rule} `) || v.detail.startsWith(`${rule}:`)
          ? v.detail
          : `${rule}: ${v.detail}`;
      return { ok: false, rule, detail };
    }
    const kid = v.decoded.header.kid as string;
    const registered = counterparty.jwks.find((r) => r.jwk.kid === kid);
    const payload = v.decoded.payload;
    const life = (payload.exp as number) - (payload.iat as number);
    return {
      ok: true,
      advice: life <= 0 ? (v.checks.find((c) => c.id === 'lifetime')?.detail ?? null) : null,
      kid,
      jwk_guid: registered?.jwk_guid ?? '',
      alg: v.alg,
      claims: {
        flow: payload.flow as string,
        obj: payload.obj as string,
        sub: payload.sub as string,
        iat: payload.iat as number,
        exp: payload.exp as number,
      },
    };
  }

  private setFor(counterparty: Counterparty): KeySet {
    let set = this.sets.get(counterparty.jwks);
    if (!set) {
      set = keySetFromJwks(
        { keys: counterparty.jwks.map((r) => r.jwk as Record<string, unknown>) },
        {
          source: 'jwks',
          name: 'the keys registered for this counterparty',
          notFound: (kid, kids) =>
            `kid ${JSON.stringify(kid)} is not registered for this counterparty (registered kids: ${kids})`,
        },
      );
      this.sets.set(counterparty.jwks, set);
    }
    return set;
  }
}
