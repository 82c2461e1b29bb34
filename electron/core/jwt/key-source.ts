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
import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { ConsoleError } from '../../contract/errors';
import { checkJwksShape, type JwksDocument } from './fetch-jwks';
import { jwkMemberProblem } from './jwk-members';
import { looksLikePem, readPemPublicKey } from './pem';
import { describeType, type AllowedAlg } from './policy';
import { modulusBits, rsaJwkProblem, rsaKeyObjectProblem } from './rsa';

export type KeySetSource = 'jwks-url' | 'jwks' | 'jwk' | 'pem';

/** How a kid selects a key in a set. */
export type KeyLookup =
  /** `kid` is the key's kid, or null when the key has none and is used whatever the kid. */
  | { found: true; kid: string | null; matchedBy: 'kid' | 'any' | 'only-key'; message: string }
  | { found: false; reason: 'no-kid' | 'kid-not-found'; available: string[]; message: string };

/** A key ready to verify with: a node:crypto public KeyObject and the words that name it. */
export interface VerifyKey {
  key: KeyObject;
  /** "key kid=abc", "the pasted PEM key". */
  label: string;
}

/**
 * The keys a token with a given kid and alg may be verified with. Several when the kid appears
 * more than once in a JWKS (each is tried; `ambiguous` says so).
 */
export type KeyCandidates =
  | { ok: true; keys: VerifyKey[]; ambiguous: boolean; matchedBy: 'kid' | 'any' | 'only-key' }
  | {
      ok: false;
      code: 'KID_MISSING' | 'KID_NOT_FOUND' | 'ALG_MISMATCH' | 'KEY_UNSUITABLE';
      message: string;
    };

/** A key of a JWKS that was left out of the set, and why (it breaks the key rules, or is no signing key). */
export interface RejectedKey {
  kid: string | null;
  reason: string;
}

/** A set of public keys that resolves a token's kid. */
export interface KeySet {
  readonly source: KeySetSource;
  /** One line: where the keys came from and what they are. */
  readonly description: string;
  /** The kids in the set (keys without a kid are not listed). */
  readonly kids: string[];
  /** Keys of the source that were left out (they break the RSA key rules, or cannot verify). */
  readonly rejected: RejectedKey[];
  /** Kids that appear more than once. */
  readonly duplicates: string[];
  /** Finds the key for a kid (what the kid check reports). */
  lookup(kid: string | undefined): KeyLookup;
  /** Every key a token with `kid` and `alg` may be verified with. Never throws. */
  candidates(kid: string | undefined, alg: AllowedAlg): KeyCandidates;
}

/** JWK members that only a private (or symmetric) key has. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

interface Entry {
  kid: string | null;
  /** "key kid=abc" or "the pasted PEM key". */
  label: string;
  /** The key's own alg, when it names one: it verifies that alg only. */
  alg: string | null;
  key: KeyObject;
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
  readonly duplicates: string[];
  constructor(
    readonly source: KeySetSource,
    readonly description: string,
    private readonly entries: Entry[],
    /** What to call the set in messages: "the JWKS", "the pasted JWK". */
    private readonly name: string,
    readonly rejected: RejectedKey[] = [],
    /** How "kid not found" reads for this set, when not the default. */
    private readonly notFound?: (kid: string, kids: string) => string,
  ) {
    this.kids = entries.flatMap((e) => (e.kid === null ? [] : [e.kid]));
    this.duplicates = [...new Set(this.kids.filter((k, i) => this.kids.indexOf(k) !== i))];
  }

  /**
   * Answers for the kids this set holds, made once: the set never changes, and a callback's
   * hot path asks for its kid twice per token (the kid check, then the candidates). Only kids
   * that are in the set are kept, so a flood of random kids cannot grow this.
   */
  private readonly found = new Map<string, KeyLookup>();
  private readonly suited = new Map<string, KeyCandidates>();

  lookup(kid: string | undefined): KeyLookup {
    const [only] = this.entries;
    if (this.entries.length === 1 && only && only.kid === null) {
      const what = only.label === 'the pasted PEM key' ? 'a PEM key has no kid' : 'the JWK has no kid';
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
    const known = this.found.get(kid);
    if (known) return known;
    const count = this.entries.filter((e) => e.kid === kid).length;
    if (count > 0) {
      const twice = count > 1 ? ` (${count} times: the kid is ambiguous in ${this.name})` : '';
      const answer: KeyLookup = {
        found: true,
        kid,
        matchedBy: 'kid',
        message: `kid ${quote(kid)} found in ${this.name}${twice}`,
      };
      this.found.set(kid, answer);
      return answer;
    }
    const left = this.rejected.filter((r) => r.kid === kid);
    const leftOut =
      left.length > 0
        ? `; ${this.name} has a key with this kid, but it was left out: ${left.map((r) => r.reason).join('; ')}`
        : '';
    return {
      found: false,
      reason: 'kid-not-found',
      available: this.kids,
      message: this.notFound
        ? `${this.notFound(kid, listKids(this.kids))}${leftOut}`
        : this.entries.length === 0
          ? `kid ${quote(kid)} not found: ${this.name} has no usable keys${leftOut}`
          : `kid ${quote(kid)} not found in ${this.name}; kids there: ${listKids(this.kids)}${leftOut}`,
    };
  }

  candidates(kid: string | undefined, alg: AllowedAlg): KeyCandidates {
    const memo = kid !== undefined && this.found.has(kid) ? `${alg} ${kid}` : null;
    const made = memo === null ? undefined : this.suited.get(memo);
    if (made) return made;
    const answer = this.candidatesOnce(kid, alg);
    if (memo !== null) this.suited.set(memo, answer);
    return answer;
  }

  private candidatesOnce(kid: string | undefined, alg: AllowedAlg): KeyCandidates {
    const found = this.lookup(kid);
    if (!found.found) {
      return {
        ok: false,
        code: found.reason === 'no-kid' ? 'KID_MISSING' : 'KID_NOT_FOUND',
        message: found.message,
      };
    }
    const matching =
      found.matchedBy === 'kid' ? this.entries.filter((e) => e.kid === found.kid) : this.entries.slice(0, 1);
    const suited = matching.filter((e) => e.alg === null || e.alg === alg);
    if (suited.length === 0) {
      const first = matching[0] as Entry;
      return {
        ok: false,
        code: 'ALG_MISMATCH',
        message: `${first.label} is for alg ${String(first.alg)}, but the token says ${alg}: the key and the token disagree`,
      };
    }
    return {
      ok: true,
      keys: suited.map((e) => ({ key: e.key, label: e.label })),
      ambiguous: matching.length > 1,
      matchedBy: found.matchedBy,
    };
  }
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Why a public JWK cannot verify an RSA signature, or null when it can (base64url members,
 * jwk-members.ts, and the rules of rsa.ts included).
 */
function jwkUnusable(jwk: Record<string, unknown>, label: string): string | null {
  if (jwk.kty !== 'RSA') return `${label} has kty ${JSON.stringify(jwk.kty)}, not "RSA"`;
  if (jwk.use !== undefined && jwk.use !== 'sig')
    return `${label} has use ${quote(String(jwk.use))}: it is not a signature key`;
  if (Array.isArray(jwk.key_ops) && !jwk.key_ops.includes('verify'))
    return `${label} has key_ops without "verify"`;
  if (typeof jwk.n !== 'string' || typeof jwk.e !== 'string')
    return `${label} lacks n or e: not an RSA public JWK`;
  const members = jwkMemberProblem(jwk);
  if (members) return `${label}: ${members}`;
  const rule = rsaJwkProblem(jwk.n, jwk.e);
  return rule ? `${label}: ${rule}` : null;
}

/** The verifying KeyObject of a public JWK, or why there is none. */
function jwkKeyObject(jwk: Record<string, unknown>, label: string): KeyObject | string {
  try {
    return createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e } as never, format: 'jwk' });
  } catch (err) {
    return `${label} is not a usable RSA public JWK: ${reason(err)}`;
  }
}

/**
 * A JWK as a key of the set, or why it is left out. A private or symmetric key is refused and
 * its members are never echoed; a key that breaks the RSA key rules or cannot verify is left out.
 */
function jwkEntry(jwk: Record<string, unknown>, where: string, labelWithoutKid: string): Entry | RejectedKey {
  if (jwk.kid !== undefined && typeof jwk.kid !== 'string') {
    return { kid: null, reason: `${where} has a kid that is ${describeType(jwk.kid)}, not a string` };
  }
  const kid = typeof jwk.kid === 'string' && jwk.kid !== '' ? jwk.kid : null;
  const label = kid === null ? labelWithoutKid : `key kid=${kid}`;
  const priv = privateMembers(jwk);
  if (priv) {
    const what = 'k' in jwk ? 'a symmetric (oct) secret key' : 'a private key';
    return { kid, reason: `${where} is ${what} (it has ${priv}): it is refused, never used` };
  }
  if (jwk.kty === undefined) return { kid, reason: `${label} has no kty: not a JWK` };
  const unusable = jwkUnusable(jwk, label);
  if (unusable) return { kid, reason: unusable };
  const key = jwkKeyObject(jwk, label);
  if (typeof key === 'string') return { kid, reason: key };
  return { kid, label, alg: typeof jwk.alg === 'string' ? jwk.alg : null, key };
}

const isEntry = (e: Entry | RejectedKey): e is Entry => 'key' in e;

/**
 * A key set from a JWK set (pasted, or fetched with {@link fetchJwks}). Keys that are private,
 * break the RSA key rules (rsa.ts) or cannot verify are left out and listed in `rejected`.
 *
 * @example
 * const set = keySetFromJwks(await fetchJwks(url, { fetch }), { source: 'jwks-url', url });
 * const c = set.candidates(header.kid, 'RS256');
 */
export function keySetFromJwks(
  jwks: JwksDocument,
  from:
    | { source: 'jwks'; name?: string; notFound?: (kid: string, kids: string) => string }
    | { source: 'jwks-url'; url: string },
): KeySet {
  const where = from.source === 'jwks-url' ? `the JWKS from ${from.url}` : 'the pasted JWKS';
  const read = jwks.keys.map((k, i) => jwkEntry(k, `${where}: keys[${i}]`, `keys[${i}] (no kid)`));
  const entries = read.filter(isEntry);
  const rejected = read.filter((e): e is RejectedKey => !isEntry(e));
  // A person who pastes private key material is told at once; a fetched JWKS just loses that key.
  const secret = rejected.find((r) => r.reason.includes('it is refused'));
  if (from.source === 'jwks' && secret) throw new ConsoleError('KEY_INVALID', secret.reason);
  const set = entries.length === 1 ? '1 key' : `${entries.length} keys`;
  const kids = entries.filter((e) => e.kid !== null).map((e) => e.kid as string);
  const left = rejected.length > 0 ? `; ${rejected.length} left out` : '';
  const description =
    from.source === 'jwks-url'
      ? `JWKS from ${from.url}: ${set} (kids: ${listKids(kids)})${left}`
      : `pasted JWKS: ${set} (kids: ${listKids(kids)})${left}`;
  return new EntryKeySet(
    from.source,
    description,
    entries,
    from.source === 'jwks-url' ? `the JWKS at ${from.url}` : (from.name ?? 'the JWKS'),
    rejected,
    from.source === 'jwks' ? from.notFound : undefined,
  );
}

/**
 * A key set of one JWK. A JWK without kid is used whatever the token's kid. Throws ConsoleError
 * KEY_INVALID when the JWK is private, breaks the RSA key rules or cannot verify.
 */
export function keySetFromJwk(jwk: Record<string, unknown>): KeySet {
  const entry = jwkEntry(jwk, 'the pasted JWK', 'the pasted JWK (no kid)');
  if (!isEntry(entry)) {
    throw new ConsoleError(
      'KEY_INVALID',
      entry.reason.includes('it is refused')
        ? `${entry.reason}; paste only the public part (kty, n, e, kid, alg, use)`
        : entry.reason,
    );
  }
  const parts = [
    String(jwk.kty),
    typeof jwk.alg === 'string' ? `alg ${jwk.alg}` : null,
    typeof jwk.use === 'string' ? `use ${jwk.use}` : null,
  ];
  const description = `pasted JWK ${entry.kid === null ? 'without kid' : `kid=${entry.kid}`} (${parts.filter(Boolean).join(', ')})`;
  return new EntryKeySet('jwk', description, [entry], 'the pasted JWK');
}

/**
 * A key set of one PEM public key, used whatever the token's kid. Throws ConsoleError
 * KEY_INVALID when it is not an RSA key or breaks the RSA key rules.
 */
export async function keySetFromPem(text: string): Promise<KeySet> {
  const pem = readPemPublicKey(text);
  const kindName = { spki: 'SPKI public key', pkcs1: 'PKCS#1 RSA public key', x509: 'X.509 certificate' }[
    pem.kind
  ];
  let key: KeyObject;
  try {
    key = pem.kind === 'x509' ? new X509Certificate(pem.pem).publicKey : createPublicKey(pem.pem);
  } catch (err) {
    throw new ConsoleError(
      'KEY_INVALID',
      `the PEM ${kindName} could not be read as an RSA key: ${reason(err)}`,
    );
  }
  const rule = rsaKeyObjectProblem(key);
  if (rule) throw new ConsoleError('KEY_INVALID', `the PEM ${kindName}: ${rule}`);
  const jwk = key.export({ format: 'jwk' });
  const bits = typeof jwk.n === 'string' ? modulusBits(jwk.n) : null;
  const thumbprint = await calculateJwkThumbprint(jwk as JWK);
  const detail = `RSA${bits ? ` ${bits}-bit` : ''}, JWK thumbprint ${thumbprint}`;
  const ignored = pem.ignored > 0 ? `; ${pem.ignored} other PEM block(s) ignored` : '';
  return new EntryKeySet(
    'pem',
    `pasted PEM ${kindName} (${detail}${ignored})`,
    [{ kid: null, label: 'the pasted PEM key', alg: null, key }],
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
