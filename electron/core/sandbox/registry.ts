/**
 * The counterparties the sandbox knows (the service's onboarding is not specified, spec 5.2;
 * the sandbox's stand-in is /sandbox/v1/counterparties) and the JWKs registered for each.
 *
 * Every change is checked before anything is touched, so a refused request leaves the registry
 * as it was. A registration is replaced, never edited in place: the bank-JWT verifier caches
 * imported keys by registration object, so a replaced JWK can never verify with its old key.
 */
import type { Counterparty, PublicJwk, RegisteredJwk } from '../../contract/schemas/sandbox';
import { conflict, notFound } from './errors';

/** Most JWKs one counterparty may have registered at once. */
export const MAX_JWKS_PER_COUNTERPARTY = 100;

export type UrlField = 'bank_auth_url' | 'bank_sender_url' | 'bank_receiver_url';

export class Registry {
  private readonly byGuid = new Map<string, Counterparty>();

  constructor(initial: Counterparty[] = []) {
    for (const cp of initial) this.byGuid.set(cp.counterparty_guid, cp);
  }

  get(guid: string): Counterparty | undefined {
    return this.byGuid.get(guid);
  }

  /** The counterparty, or NOT_FOUND naming the GUID. */
  require(guid: string): Counterparty {
    const cp = this.byGuid.get(guid);
    if (!cp) {
      throw notFound(
        `counterparty ${guid} is not known to the sandbox; onboard it first with POST /sandbox/v1/counterparties`,
      );
    }
    return cp;
  }

  list(): Counterparty[] {
    return [...this.byGuid.values()];
  }

  count(): number {
    return this.byGuid.size;
  }

  /** Adds a new counterparty; CONFLICT when its GUID (or its first jwk's kid) is taken. */
  add(cp: Counterparty): void {
    if (this.byGuid.has(cp.counterparty_guid)) {
      throw conflict(`counterparty_guid ${cp.counterparty_guid} is already onboarded`);
    }
    this.byGuid.set(cp.counterparty_guid, cp);
  }

  /** Removes a counterparty (its registered JWKs with it); NOT_FOUND when it is not known. */
  remove(guid: string): Counterparty {
    const cp = this.require(guid);
    this.byGuid.delete(guid);
    return cp;
  }

  /**
   * Registers `jwk` under `jwkGuid` for `cp`: replaces the registration with that GUID (PUT is
   * idempotent), else adds one. CONFLICT when another registration of this counterparty has
   * the same kid (keys are chosen by kid, so kids are unique per counterparty).
   */
  register(
    cp: Counterparty,
    jwkGuid: string,
    jwk: PublicJwk,
    via: RegisteredJwk['via'],
    nowMs: number,
  ): RegisteredJwk {
    const kid = String(jwk.kid);
    const clash = cp.jwks.find((r) => r.jwk.kid === kid && r.jwk_guid !== jwkGuid);
    if (clash) {
      throw conflict(
        `kid ${JSON.stringify(kid)} is already registered for this counterparty under jwk_guid ${clash.jwk_guid}; a kid names one key`,
      );
    }
    const existing = cp.jwks.findIndex((r) => r.jwk_guid === jwkGuid);
    if (existing < 0 && cp.jwks.length >= MAX_JWKS_PER_COUNTERPARTY) {
      throw conflict(
        `counterparty ${cp.counterparty_guid} already has ${MAX_JWKS_PER_COUNTERPARTY} registered JWKs, the sandbox's limit`,
      );
    }
    const registration: RegisteredJwk = {
      jwk_guid: jwkGuid,
      jwk: { ...jwk },
      registered_at: new Date(nowMs).toISOString(),
      via,
    };
    cp.jwks =
      existing < 0 ? [...cp.jwks, registration] : cp.jwks.map((r, i) => (i === existing ? registration : r));
    return registration;
  }

  /** Sets or clears a counterparty's bank URLs (undefined leaves one as it is). */
  updateUrls(cp: Counterparty, urls: Partial<Record<UrlField, string | null | undefined>>): void {
    for (const field of ['bank_auth_url', 'bank_sender_url', 'bank_receiver_url'] as const) {
      const value = urls[field];
      if (value !== undefined) cp[field] = value;
    }
  }
}
