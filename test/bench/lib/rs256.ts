/**
 * Compact RS256 JWTs with node:crypto alone: what the crypto-floor server does per request, and
 * how the bench signs its token pool and samples the session tokens it gets back. Deliberately
 * minimal (RS256 only, no policy beyond the claims the sandbox checks): the floor must cost no
 * more than the cryptography itself.
 */
import { createPublicKey, generateKeyPair, sign, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

export interface JwtHeader {
  alg: string;
  kid?: string;
  typ?: string;
}

export interface BankClaims {
  flow: string;
  obj: string;
  sub: string;
  iat: number;
  exp: number;
}

/** The spec's public JWK fields (2.1). */
export interface PublicRsaJwk {
  kty: 'RSA';
  n: string;
  e: string;
  kid: string;
  alg: 'RS256';
  use: 'sig';
}

export interface RsaKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  jwk: PublicRsaJwk;
}

const generate = promisify(generateKeyPair);

/** A fresh RSA 2048 key pair with its public JWK (generated in libuv's thread pool). */
export async function makeRsaKey(kid: string): Promise<RsaKey> {
  const { privateKey, publicKey } = await generate('rsa', { modulusLength: 2048 });
  const { n, e } = publicKey.export({ format: 'jwk' });
  if (typeof n !== 'string' || typeof e !== 'string') throw new Error('RSA key export lacks n/e');
  return { kid, privateKey, publicKey, jwk: { kty: 'RSA', n, e, kid, alg: 'RS256', use: 'sig' } };
}

export function publicKeyFromJwk(jwk: JsonWebKey): KeyObject {
  return createPublicKey({ key: jwk, format: 'jwk' });
}

function signingInput(header: JwtHeader, payload: object): string {
  return `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
}

/** RS256 compact JWS, synchronously on the calling thread (crypto.sign). */
export function signJwtSync(header: JwtHeader, payload: object, privateKey: KeyObject): string {
  const input = signingInput(header, payload);
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

/** RS256 compact JWS, signed in libuv's thread pool (crypto.sign with a callback). */
export function signJwt(header: JwtHeader, payload: object, privateKey: KeyObject): Promise<string> {
  const input = signingInput(header, payload);
  return new Promise((resolve, reject) => {
    sign('sha256', Buffer.from(input), privateKey, (err, sig) =>
      err ? reject(err) : resolve(`${input}.${sig.toString('base64url')}`),
    );
  });
}

export interface Verified {
  header: JwtHeader;
  payload: Record<string, unknown>;
}

type KeyLookup = KeyObject | ((kid: string | undefined) => KeyObject | undefined);

interface Parsed extends Verified {
  input: Buffer;
  signature: Buffer;
  key: KeyObject;
}

/** Splits and decodes an RS256 compact JWS and finds its key; null when malformed or keyless. */
function parse(token: string, publicKey: KeyLookup): Parsed | null {
  const first = token.indexOf('.');
  const last = token.lastIndexOf('.');
  if (first <= 0 || last === first || last === token.length - 1) return null;
  let header: JwtHeader;
  let payload: unknown;
  try {
    header = JSON.parse(Buffer.from(token.slice(0, first), 'base64url').toString('utf8')) as JwtHeader;
    payload = JSON.parse(Buffer.from(token.slice(first + 1, last), 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (header?.alg !== 'RS256' || typeof payload !== 'object' || payload === null) return null;
  const key = typeof publicKey === 'function' ? publicKey(header.kid) : publicKey;
  if (!key) return null;
  return {
    header,
    payload: payload as Record<string, unknown>,
    key,
    input: Buffer.from(token.slice(0, last)),
    signature: Buffer.from(token.slice(last + 1), 'base64url'),
  };
}

/**
 * Verifies an RS256 compact JWS with `publicKey` (crypto.verify, synchronous) and decodes it.
 * Null for anything that is not a well-formed RS256 token with a valid signature.
 */
export function verifyJwtSync(token: string, publicKey: KeyLookup): Verified | null {
  const p = parse(token, publicKey);
  return p && verify('sha256', p.input, p.key, p.signature) ? { header: p.header, payload: p.payload } : null;
}

/** verifyJwtSync, with the signature checked in libuv's thread pool (crypto.verify with a callback). */
export function verifyJwt(token: string, publicKey: KeyLookup): Promise<Verified | null> {
  const p = parse(token, publicKey);
  if (!p) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    verify('sha256', p.input, p.key, p.signature, (err, ok) =>
      err ? reject(err) : resolve(ok ? { header: p.header, payload: p.payload } : null),
    );
  });
}

/**
 * The claim rules the sandbox applies to a bank JWT (DESIGN.md, "Service endpoint rules"):
 * flow = sign-in, obj and sub non-empty strings, iat not in the future and exp in the future
 * (60 s leeway), lifetime exp - iat of at most `maxLifetime` seconds.
 */
export function bankClaimsOk(p: object, nowSeconds: number, maxLifetime = 3600): p is BankClaims {
  const { flow, obj, sub, iat, exp } = p as Partial<Record<keyof BankClaims, unknown>>;
  return (
    flow === 'sign-in' &&
    typeof obj === 'string' &&
    obj.length > 0 &&
    typeof sub === 'string' &&
    sub.length > 0 &&
    Number.isInteger(iat) &&
    Number.isInteger(exp) &&
    (iat as number) <= nowSeconds + 60 &&
    (exp as number) > nowSeconds - 60 &&
    (exp as number) - (iat as number) <= maxLifetime &&
    (exp as number) > (iat as number)
  );
}
