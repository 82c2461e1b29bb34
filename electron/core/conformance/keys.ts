/**
 * The runner's own service keys (it plays the service, spec 2.4 / 4.1 #3) and the tokens it
 * sends in X-Session-ID, good and deliberately bad.
 *
 * Threat model: these keys exist only to test a bank; they live in this process's memory for one
 * run and are never written anywhere (DESIGN.md "Secrets"): reports carry the public JWKs and the
 * tokens sent, never a private key. Tokens are built by hand (three base64url segments, RFC 7515)
 * with node:crypto, because several of them must be malformed on purpose (alg none, HS256 keyed
 * with the public key), which no JWT library will produce.
 */
import { createHmac, generateKeyPair, randomUUID, sign, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { decodeCompact, publicRsaJwk, SERVICE_ALG, SIGN_IN_FLOW } from '../jwt';
import type { PublishedJwk } from '../sandbox';

const generateRsa = promisify(generateKeyPair);

/** RSA modulus of the runner's keys, in bits (the service's own size). */
export const RUNNER_KEY_BITS = 2048;

export interface RunnerKey {
  kid: string;
  jwk: PublishedJwk;
  privateKey: KeyObject;
  /** SPKI PEM of the public key: the HMAC secret of the algorithm-confusion forgery. */
  publicPem: string;
}

/** A fresh RS256 key pair with a random kid. */
export async function generateRunnerKey(kid: string = randomUUID()): Promise<RunnerKey> {
  const pair = await generateRsa('rsa', { modulusLength: RUNNER_KEY_BITS, publicExponent: 0x10001 });
  const pub = publicRsaJwk(pair.publicKey);
  return {
    kid,
    jwk: { alg: SERVICE_ALG, e: pub.e, kid, kty: 'RSA', n: pub.n, use: 'sig' },
    privateKey: pair.privateKey,
    publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string,
  };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The claims of a service JWT (spec 2.4), `now` in Unix seconds; `over` replaces any of them. */
export function serviceClaims(
  obj: string,
  sub: string,
  now: number,
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  return { flow: SIGN_IN_FLOW, obj, sub, iat: now, exp: now + 300, ...over };
}

/** An RS256 JWS signed with `privateKey`, its header claiming `kid`. */
export function signRs256(privateKey: KeyObject, kid: string, payload: Record<string, unknown>): string {
  const input = `${b64({ alg: SERVICE_ALG, kid, typ: 'JWT' })}.${b64(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

/** An unsigned token: header alg none, empty signature segment. */
export function unsignedToken(kid: string, payload: Record<string, unknown>): string {
  return `${b64({ alg: 'none', kid, typ: 'JWT' })}.${b64(payload)}.`;
}

/**
 * The algorithm-confusion forgery: HS256 "signed" with the service's public key (its PEM text)
 * as the HMAC secret. A verifier that lets the token pick the algorithm and passes the RSA public
 * key to it accepts this, and then anyone can sign.
 */
export function hs256WithPublicKey(key: RunnerKey, payload: Record<string, unknown>): string {
  const input = `${b64({ alg: 'HS256', kid: key.kid, typ: 'JWT' })}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', key.publicPem).update(input).digest('base64url')}`;
}

/** The token's header and payload as the report shows them (null when it is not a three-segment JWS). */
export function decodeForReport(
  token: string,
): { header: Record<string, unknown>; payload: Record<string, unknown> | null } | null {
  const d = decodeCompact(token);
  return d.form === 'jws' && d.header ? { header: d.header, payload: d.payload } : null;
}
