/**
 * Public keys to verify a token with, whatever form they come in: a JWKS URL, a pasted JWKS, a
 * single JWK, or PEM (SPKI, PKCS#1 RSA public key, X.509 certificate). Each loads into a
 * {@link KeySet} that resolves a token's kid to a key, with reasons a person can act on when it
 * cannot (kid not found, listing the kids there are; key for another alg; not an RSA key).
 *
 * Threat model: the material is pasted or fetched, so it is untrusted input. Private key
 * material is refused outright (a private JWK or PEM pasted by mistake is never imported, and
 * its contents are never echoed back); symmetric ("oct") keys are refused, as HMAC is never
 * accepted (policy.ts); a key is only used for the alg the token names when the key's own `alg`
 * (if any) agrees. Imports go through jose.
 */
import {
  calculateJwkThumbprint,
  exportJWK,
  importJWK,
  importSPKI,
  importX509,
  type CryptoKey,
  type JWK,
} from 'jose';
import { ConsoleError } from '../../contract/errors';
import type { KeySource } from '../../contract/schemas/inspector';
import { checkJwksShape, fetchJwks, type FetchJwksOptions, type JwksDocument } from './fetch-jwks';
import { looksLikePem, readPemPublicKey, type PemPublicKey } from './pem';
import { describeType, type AllowedAlg } from './policy';
import { modulusBits } from './rsa';

export type KeySetSource = 'jwks-url' | 'jwks' | 'jwk' | 'pem';

/** How a kid selects a key in a set. */
export type KeyLookup =
  /** `kid` is the key's kid, or null when the key has none and is used whatever the kid. */
  | { found: true; kid: string | null; matchedBy: 'kid' | 'any' | 'only-key'; message: string }
  | { found: false; reason: 'no-kid' | 'kid-not-found'; available: string[]; message: string };

export type KeyResolution =
  | { ok: true; key: CryptoKey; kid: string | null; label: string; matchedBy: 'kid' | 'any' | 'only-key' }
  | {
      ok: false;
      code: 'KID_MISSING' | 'KID_NOT_FOUND' | 'ALG_MISMATCH' | 'KEY_UNSUITABLE' | 'KEY_INVALID';
      message: string;
    };

/** A set of public keys that resolves a token's kid. */
export interface KeySet {
  readonly source: KeySetSource;
  /** One line: where the keys came from and what they are. */
  readonly description: string;
  /** The kids in the set (keys without a kid are not listed). */
  readonly kids: string[];
  /** Finds the key for a kid, without importing it (what the kid check reports). */
  lookup(kid: string | undefined): KeyLookup;
  /** Finds and imports the key to verify a token with `kid` and `alg`. Never throws. */
  resolve(kid: string | undefined, alg: AllowedAlg): Promise<KeyResolution>;
}

/** JWK members that only a private (or symmetric) key has. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

interface Entry {
  kid: string | null;
  /** "key kid=abc" or "the pasted PEM key". */
  label: string;
  jwk?: Record<string, unknown>;
  pem?: PemPublicKey;
}

/** A JWK's private members, by name ("d, p, q"), or null when it has none. */
export function privateMembers(jwk: Record<string, unknown>): string | null {
  const found = PRIVATE_MEMBERS.filter((m) => m in jwk);
  return found.length > 0 ? found.join(', ') : null;
}

const quote = (s: string) => JSON.stringify(s);
const listKids = (kids: string[]) => (kids.length > 0 ? kids.map(quote).join(', ') : 'none');

class EntryKeySet implements KeySet {
  readonly kids: string[];
  constructor(
    readonly source: KeySetSource,
    readonly description: string,
    private readonly entries: Entry[],
    /** What to call the set in messages: "the JWKS", "the pasted JWK". */
    private readonly name: string,
  ) {
    this.kids = entries.flatMap((e) => (e.kid === null ? [] : [e.kid]));
  }

  lookup(kid: string | undefined): KeyLookup {
    const [only] = this.entries;
    if (this.entries.length === 1 && only && only.kid === null) {
      const what = only.pem ? 'a PEM key has no kid' : 'the JWK has no kid';
      return {
        found: true,
        kid: null,
        matchedBy: 'any',
        message: `${what}, so it is used whatever the token's kid`,
      };
    }
    if (kid === undefined || kid === '') {
      if (this.entries.length === 1 && only) {
        return {
          found: true,
          kid: only.kid,
          matchedBy: 'only-key',
          message: `the token has no kid; ${this.name} has one key (${only.label}), used for lack of a kid`,
        };
      }
      return {
        found: false,
        reason: 'no-kid',
        available: this.kids,
        message: `the token has no kid, and ${this.name} has ${this.entries.length} keys (kids: ${listKids(this.kids)}): no way to choose`,
      };
    }
    if (this.entries.some((e) => e.kid === kid)) {
      return { found: true, kid, matchedBy: 'kid', message: `kid ${quote(kid)} found in ${this.name}` };
    }
    const empty = this.entries.length === 0;
    return {
      found: false,
      reason: 'kid-not-found',
      available: this.kids,
      message: empty
        ? `kid ${quote(kid)} not found: ${this.name} has no keys`
        : `kid ${quote(kid)} not found in ${this.name}; kids there: ${listKids(this.kids)}`,
    };
  }

  async resolve(kid: string | undefined, alg: AllowedAlg): Promise<KeyResolution> {
    const found = this.lookup(kid);
    if (!found.found) {
      return {
        ok: false,
        code: found.reason === 'no-kid' ? 'KID_MISSING' : 'KID_NOT_FOUND',
        message: found.message,
      };
    }
    const candidates =
      found.matchedBy === 'kid' ? this.entries.filter((e) => e.kid === found.kid) : this.entries.slice(0, 1);
    // Several keys may share a kid (e.g. one per alg): the first that suits the token wins; when
    // none does, the first one's reason is reported.
    let first: KeyResolution | undefined;
    for (const entry of candidates) {
      const r = await importEntry(entry, alg);
      if (r.ok) return { ...r, matchedBy: found.matchedBy };
      first ??= r;
    }
    return first ?? { ok: false, code: 'KID_NOT_FOUND', message: found.message };
  }
}

async function importEntry(entry: Entry, alg: AllowedAlg): Promise<KeyResolution> {
  const { label } = entry;
  if (entry.pem) {
    try {
      const key =
        entry.pem.kind === 'x509'
          ? await importX509(entry.pem.pem, alg)
          : await importSPKI(entry.pem.pem, alg);
      return { ok: true, key, kid: null, label, matchedBy: 'any' };
    } catch (err) {
      return {
        ok: false,
        code: 'KEY_INVALID',
        message: `${label} could not be imported for ${alg}: ${reason(err)}`,
      };
    }
  }
  const jwk = entry.jwk ?? {};
  if (jwk.kty !== 'RSA') {
    return {
      ok: false,
      code: 'KEY_UNSUITABLE',
      message: `${label} has kty ${JSON.stringify(jwk.kty)}, but ${alg} needs an RSA key (kty "RSA")`,
    };
  }
  if (jwk.use !== undefined && jwk.use !== 'sig') {
    return {
      ok: false,
      code: 'KEY_UNSUITABLE',
      message: `${label} has use ${quote(String(jwk.use))}: it is not a signature key`,
    };
  }
  if (Array.isArray(jwk.key_ops) && !jwk.key_ops.includes('verify')) {
    return { ok: false, code: 'KEY_UNSUITABLE', message: `${label} has key_ops without "verify"` };
  }
  if (jwk.alg !== undefined && jwk.alg !== alg) {
    return {
      ok: false,
      code: 'ALG_MISMATCH',
      message: `${label} is for alg ${String(jwk.alg)}, but the token says ${alg}: the key and the token disagree`,
    };
  }
  try {
    const key = await importJWK(jwk as JWK, alg);
    if (key instanceof Uint8Array) throw new Error('a symmetric key');
    return { ok: true, key, kid: entry.kid, label, matchedBy: 'kid' };
  } catch (err) {
    return {
      ok: false,
      code: 'KEY_INVALID',
      message: `${label} is not a usable RSA public JWK: ${reason(err)}`,
    };
  }
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function jwkEntry(jwk: Record<string, unknown>, where: string, labelWithoutKid: string): Entry {
  const priv = privateMembers(jwk);
  if (priv) {
    const what = 'k' in jwk ? 'a symmetric (oct) secret key' : 'a private key';
    throw new ConsoleError(
      'KEY_INVALID',
      `${where} is ${what} (it has ${priv}): it is refused, never used; paste only the public part (kty, n, e, kid, alg, use)`,
    );
  }
  if (jwk.kty === undefined) throw new ConsoleError('KEY_INVALID', `${where} has no kty: not a JWK`);
  if (jwk.kid !== undefined && typeof jwk.kid !== 'string') {
    throw new ConsoleError(
      'KEY_INVALID',
      `${where} has a kid that is ${describeType(jwk.kid)}, not a string`,
    );
  }
  const kid = typeof jwk.kid === 'string' && jwk.kid !== '' ? jwk.kid : null;
  return { kid, label: kid === null ? labelWithoutKid : `key kid=${kid}`, jwk };
}

/**
 * A key set from a JWK set (pasted, or fetched with {@link fetchJwks}). Throws ConsoleError
 * KEY_INVALID when a key in it is private or not a JWK.
 *
 * @example
 * const set = keySetFromJwks(await fetchJwks(url, { fetch }), { source: 'jwks-url', url });
 * const r = await set.resolve(header.kid, 'RS256');
 */
export function keySetFromJwks(
  jwks: JwksDocument,
  from: { source: 'jwks' } | { source: 'jwks-url'; url: string },
): KeySet {
  const where = from.source === 'jwks-url' ? `the JWKS from ${from.url}` : 'the pasted JWKS';
  const entries = jwks.keys.map((k, i) => jwkEntry(k, `${where}: keys[${i}]`, `keys[${i}] (no kid)`));
  const set = entries.length === 1 ? '1 key' : `${entries.length} keys`;
  const kids = entries.filter((e) => e.kid !== null).map((e) => e.kid as string);
  const description =
    from.source === 'jwks-url'
      ? `JWKS from ${from.url}: ${set} (kids: ${listKids(kids)})`
      : `pasted JWKS: ${set} (kids: ${listKids(kids)})`;
  return new EntryKeySet(
    from.source,
    description,
    entries,
    from.source === 'jwks-url' ? `the JWKS at ${from.url}` : 'the JWKS',
  );
}

/** A key set of one JWK. A JWK without kid is used whatever the token's kid. */
export function keySetFromJwk(jwk: Record<string, unknown>): KeySet {
  const entry = jwkEntry(jwk, 'the pasted JWK', 'the pasted JWK (no kid)');
  const parts = [
    String(jwk.kty),
    typeof jwk.alg === 'string' ? `alg ${jwk.alg}` : null,
    typeof jwk.use === 'string' ? `use ${jwk.use}` : null,
  ];
  const description = `pasted JWK ${entry.kid === null ? 'without kid' : `kid=${entry.kid}`} (${parts.filter(Boolean).join(', ')})`;
  return new EntryKeySet('jwk', description, [entry], 'the pasted JWK');
}

/** A key set of one PEM public key, used whatever the token's kid. Validates it by importing it. */
export async function keySetFromPem(text: string): Promise<KeySet> {
  const pem = readPemPublicKey(text);
  const kindName = { spki: 'SPKI public key', pkcs1: 'PKCS#1 RSA public key', x509: 'X.509 certificate' }[
    pem.kind
  ];
  let detail: string;
  try {
    const key =
      pem.kind === 'x509'
        ? await importX509(pem.pem, 'RS256', { extractable: true })
        : await importSPKI(pem.pem, 'RS256', { extractable: true });
    const jwk = await exportJWK(key);
    const bits = typeof jwk.n === 'string' ? modulusBits(jwk.n) : null;
    const thumbprint = await calculateJwkThumbprint(jwk);
    detail = `RSA${bits ? ` ${bits}-bit` : ''}, JWK thumbprint ${thumbprint}`;
  } catch (err) {
    throw new ConsoleError(
      'KEY_INVALID',
      `the PEM ${kindName} could not be read as an RSA key: ${reason(err)}`,
    );
  }
  const ignored = pem.ignored > 0 ? `; ${pem.ignored} other PEM block(s) ignored` : '';
  return new EntryKeySet(
    'pem',
    `pasted PEM ${kindName} (${detail}${ignored})`,
    [{ kid: null, label: 'the pasted PEM key', pem }],
    'the PEM key',
  );
}

/**
 * Reads pasted key text: a JWKS (`{"keys": […]}`), a single JWK (`{"kty": …}`, also inside a
 * `{"data": JWK}` body as the PUT endpoint takes it), or PEM. Throws ConsoleError KEY_INVALID /
 * JWKS_INVALID naming what is wrong.
 */
export async function keySetFromText(text: string): Promise<KeySet> {
  const trimmed = text.trim();
  if (looksLikePem(trimmed)) return keySetFromPem(trimmed);
  if (!trimmed.startsWith('{')) {
    throw new ConsoleError(
      'KEY_INVALID',
      'the pasted key is neither JSON (a JWKS or JWK, starting with "{") nor PEM (starting with "-----BEGIN")',
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (err) {
    throw new ConsoleError('KEY_INVALID', `the pasted key is not valid JSON: ${reason(err)}`);
  }
  const obj = value as Record<string, unknown>;
  if ('keys' in obj) return keySetFromJwks(checkJwksShape(obj, 'the pasted JWKS'), { source: 'jwks' });
  if ('kty' in obj) return keySetFromJwk(obj);
  const data = obj.data;
  if (data && typeof data === 'object' && !Array.isArray(data) && 'kty' in data) {
    return keySetFromJwk(data as Record<string, unknown>);
  }
  throw new ConsoleError(
    'KEY_INVALID',
    'the pasted JSON is neither a JWKS (no "keys" array) nor a JWK (no "kty")',
  );
}

/**
 * Loads the key source an inspection names. Returns null for none; throws ConsoleError
 * (JWKS_FETCH_FAILED, JWKS_INVALID, KEY_INVALID) with a message a person can act on.
 */
export async function loadKeySource(
  source: KeySource | undefined,
  deps: FetchJwksOptions,
): Promise<KeySet | null> {
  if (!source || source.type === 'none') return null;
  if (source.type === 'jwks-url') {
    const jwks = await fetchJwks(source.url, deps);
    return keySetFromJwks(jwks, { source: 'jwks-url', url: source.url });
  }
  return keySetFromText(source.text);
}

/** What kind of source a pasted text is meant to be, for describing one that failed to load. */
export function guessTextSource(text: string): KeySetSource | 'text' {
  const t = text.trim();
  if (looksLikePem(t)) return 'pem';
  try {
    const value: unknown = JSON.parse(t);
    if (value && typeof value === 'object' && !Array.isArray(value)) return 'keys' in value ? 'jwks' : 'jwk';
  } catch {
    // not JSON: fall through
  }
  return 'text';
}
