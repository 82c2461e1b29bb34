/**
 * What the console accepts in a token, written once: the inspector, the bank endpoints'
 * X-Session-ID verifier (DESIGN.md "Bank endpoints") and the sandbox all judge tokens by these.
 *
 * Threat model: a verifier that lets the token choose how it is verified can be fooled. `none`
 * turns the signature off; HS* turns the signature into an HMAC whose secret an attacker may
 * know (a shared secret, or the service's *public* key bytes used as the HMAC secret: the
 * classic algorithm-confusion forgery). So the allowed list is RSA only, and HMAC and `none`
 * are refused by name before any key is touched.
 */

/** RSA signature algorithms the console accepts (spec 2.1: RS256 in every example). */
export const ALLOWED_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] as const;
export type AllowedAlg = (typeof ALLOWED_ALGS)[number];

/** HMAC algorithms: refused by name, never verified. */
export const HMAC_ALGS = ['HS256', 'HS384', 'HS512'] as const;

/** The algorithm the service itself signs with. */
export const SERVICE_ALG: AllowedAlg = 'RS256';

/** Clock skew tolerated on exp, iat and nbf, in seconds (DESIGN.md "Bank endpoints"). */
export const LEEWAY_SECONDS = 60;

/** The sandbox's default bank JWT lifetime limit (written once, in the contract: the pages warn past it too). */
export { MAX_BANK_JWT_LIFETIME_SECONDS } from '../../contract/schemas/sandbox';

/** Spec 2.4: flow is a constant, always sign-in. */
export const SIGN_IN_FLOW = 'sign-in';

/** Other flow values the service's public guide lists; the spec fixes sign-in. */
export const GUIDE_FLOWS = ['sign-up', 'sign-up-processing', 'sign-up-emission'] as const;

/**
 * A NumericDate above this (year 5138 in seconds, 1973 in milliseconds) is taken to be in
 * milliseconds: a common bug (`Date.now()` instead of `Date.now() / 1000`).
 */
export const MILLISECONDS_THRESHOLD = 1e11;

const ALG_NAMES: Record<AllowedAlg, string> = {
  RS256: 'RSASSA-PKCS1-v1_5 with SHA-256',
  RS384: 'RSASSA-PKCS1-v1_5 with SHA-384',
  RS512: 'RSASSA-PKCS1-v1_5 with SHA-512',
  PS256: 'RSASSA-PSS with SHA-256',
  PS384: 'RSASSA-PSS with SHA-384',
  PS512: 'RSASSA-PSS with SHA-512',
};

export function isAllowedAlg(alg: unknown): alg is AllowedAlg {
  return typeof alg === 'string' && (ALLOWED_ALGS as readonly string[]).includes(alg);
}

/** The verdict on a header's `alg`, with the words a person needs. */
export type AlgVerdict =
  | { ok: true; alg: AllowedAlg; message: string }
  | { ok: false; reason: 'missing' | 'none' | 'hmac' | 'not-allowed'; message: string };

/**
 * Judges a header's `alg` against {@link ALLOWED_ALGS}.
 *
 * @example
 * judgeAlg('HS256') // { ok: false, reason: 'hmac', message: 'alg HS256 is HMAC with a shared secret: …' }
 */
export function judgeAlg(alg: unknown): AlgVerdict {
  const allowed = ALLOWED_ALGS.join(', ');
  if (alg === undefined) return { ok: false, reason: 'missing', message: 'the header has no alg' };
  if (typeof alg !== 'string') {
    return { ok: false, reason: 'missing', message: `alg is ${describeType(alg)}, not a string` };
  }
  if (isAllowedAlg(alg)) {
    const note = alg === SERVICE_ALG ? '' : ` (allowed; the service itself signs with ${SERVICE_ALG})`;
    return { ok: true, alg, message: `${alg}: ${ALG_NAMES[alg]}${note}` };
  }
  // Case variants of "none" ("None", "NONE") are a known bypass of naive checks.
  if (alg.toLowerCase() === 'none') {
    return {
      ok: false,
      reason: 'none',
      message: `alg ${JSON.stringify(alg)}: an unsigned token, with no signature at all; it must never be accepted (the service signs with ${SERVICE_ALG})`,
    };
  }
  if ((HMAC_ALGS as readonly string[]).includes(alg.toUpperCase())) {
    return {
      ok: false,
      reason: 'hmac',
      message:
        `alg ${alg} is HMAC with a shared secret: never accepted. Whoever knows the secret can forge ` +
        `tokens, and a verifier that takes the service's public key as the HMAC secret lets anyone ` +
        `sign (algorithm confusion). The service signs with ${SERVICE_ALG}`,
    };
  }
  return {
    ok: false,
    reason: 'not-allowed',
    message: `alg ${alg} is not allowed: accepted are ${allowed}; the service signs with ${SERVICE_ALG}`,
  };
}

/**
 * Whether an obj or sub names no one: empty, or only white space (String.prototype.trim's: the
 * Unicode White_Space characters and line terminators). The engine fails such a claim as empty
 * (checks.ts), so a test customer whose obj or sub is blank could never be matched by any token:
 * the customer directory refuses one by this same rule (bank/customers.ts).
 *
 * @example
 * isBlankClaim('   ') // true
 * isBlankClaim(' DE89 ') // false: compared exactly, so only a warning's business
 */
export function isBlankClaim(value: string): boolean {
  return value.trim() === '';
}

/** "a number", "an array", "null"…: for messages about a value of the wrong type. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  const t = typeof value;
  return t === 'object' ? 'an object' : `a ${t}`;
}
