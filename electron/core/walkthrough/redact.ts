/**
 * Redaction of the evidence pack (issue 6: "redacted by default: no private key, no user secret
 * key, tokens' signatures shortened"). A pure function over any JSON value, applied to the whole
 * pack just before it is written, so nothing added to the pack later can slip past it.
 *
 * Threat model: the pack is attached to an onboarding sign-off and travels by e-mail and ticket
 * systems. The console never puts a private key in it, but this is the last line anyway:
 * - JWK private members (d, p, q, dp, dq, qi, oth, and k of a symmetric key) are dropped from any
 *   object that has a kty;
 * - a PEM private key block anywhere in a string is replaced;
 * - a customer's secret `key` (spec 2.5, 5.7) is replaced wherever it appears: as a `key` member
 *   of an object, or as `"key": "…"` inside JSON text (a recorded body);
 * - every compact JWS found in a string (a token alone, a CX-Authorization header, a curl
 *   command) keeps its header and payload, which are the evidence, and only the first 8
 *   characters of its signature, so it can be matched but not replayed.
 */

export interface RedactOptions {
  /** Keep tokens' signatures whole (private keys and user secret keys go regardless). */
  fullTokens?: boolean;
}

export const REMOVED_PRIVATE = '<removed: private key>';
export const REMOVED_USER_KEY = '<removed: user secret key>';
const SIGNATURE_KEPT = 8;

const JWK_PRIVATE_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']);
const PEM_PRIVATE = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(-----END \1PRIVATE KEY-----|$)/g;
/** header.payload.signature, each base64url; the header starts with eyJ ({"). */
const COMPACT_JWS = /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.([A-Za-z0-9_-]+)/g;
/** A `"key": "…"` member inside JSON text. */
const KEY_MEMBER = /("key"\s*:\s*)"(?:[^"\\]|\\.)*"/g;
/** Already masked by the bank endpoints or the sandbox (`<masked: 24 characters>`). */
const MASKED = /^<(masked|removed)\b/;

/** Shortens a compact JWS's signature to its first 8 characters and an ellipsis. */
export function shortenSignature(token: string): string {
  const parts = token.split('.');
  if (parts.length !== 3) return token;
  const [h, p, s] = parts as [string, string, string];
  return s.length <= SIGNATURE_KEPT ? token : `${h}.${p}.${s.slice(0, SIGNATURE_KEPT)}…`;
}

export function redactString(text: string, options: RedactOptions = {}): string {
  let out = text.replace(PEM_PRIVATE, REMOVED_PRIVATE);
  out = out.replace(KEY_MEMBER, (whole, head: string) => {
    const value = whole.slice(head.length + 1, -1);
    return MASKED.test(value) ? whole : `${head}"${REMOVED_USER_KEY}"`;
  });
  if (!options.fullTokens) out = out.replace(COMPACT_JWS, (jws) => shortenSignature(jws));
  return out;
}

/**
 * A redacted deep copy of `value` (see the threat model above).
 *
 * @example
 * redactPack({ jwk: { kty: 'RSA', n, e, d }, user: { key: 's3cret' }, token: 'eyJ….eyJ….AbCdEfGhIj…' });
 * // { jwk: { kty: 'RSA', n, e }, user: { key: '<removed: user secret key>' }, token: 'eyJ….eyJ….AbCdEfGh…' }
 */
export function redactPack<T>(value: T, options: RedactOptions = {}): T {
  return walk(value, options) as T;
}

function walk(value: unknown, options: RedactOptions): unknown {
  if (typeof value === 'string') return redactString(value, options);
  if (Array.isArray(value)) return value.map((v) => walk(v, options));
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const isJwk = typeof record.kty === 'string';
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(record)) {
    if (isJwk && JWK_PRIVATE_MEMBERS.has(name)) continue;
    if (name === 'key' && member !== null && !(typeof member === 'string' && MASKED.test(member))) {
      out[name] = REMOVED_USER_KEY;
      continue;
    }
    out[name] = walk(member, options);
  }
  return out;
}
