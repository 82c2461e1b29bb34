/**
 * A stand-in for a real service's JWKS on 127.0.0.1 (issue 26 tests): its own RSA key made and
 * used with node:crypto alone (an outsider, not the library under test), its JWKS served at
 * {base}/api/v1/.well-known/jwks.json, closed when the current test finishes.
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

export interface RealService {
  base: string;
  kid: string;
  privateKey: KeyObject;
}

/** Starts the JWKS host; `base` is what an environment's base_url would be. */
export async function startRealService(): Promise<RealService> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `real-${randomBytes(4).toString('hex')}`;
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
  const server = http.createServer((req, res) => {
    req.resume();
    if (req.url !== '/api/v1/.well-known/jwks.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, kid, privateKey };
}

/** A compact RS256 JWS over `payload`, header {alg, kid, typ}, made with node:crypto alone. */
export function cryptoJwt(privateKey: KeyObject, kid: string, payload: Record<string, unknown>): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${b64({ alg: 'RS256', kid, typ: 'JWT' })}.${b64(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

/** Sign-in claims for obj/sub, valid for five minutes. */
export function signInClaims(obj: string, sub: string): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return { flow: 'sign-in', obj, sub, iat: now - 5, exp: now + 300 };
}
