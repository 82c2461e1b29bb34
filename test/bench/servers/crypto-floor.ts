/**
 * Bench target (c), the crypto floor: a minimal node:http server doing the cryptographic work an
 * authenticate request needs and nothing else: one RS256 verification of the bank's token with
 * the bank's public KeyObject (crypto.verify), the claim rules, and one RS256 signature of a fresh
 * session JWT (crypto.sign), both synchronous on the event loop. No routing, no state, no
 * validation library: on one core the sandbox cannot be faster than this without skipping work.
 *
 * Env: BENCH_BANK_JWK, the bank's public JWK (JSON); BENCH_CRYPTO_FLOOR=async runs verify and
 * sign in libuv's thread pool instead (their callback forms), as WebCrypto does, for comparing
 * against a sandbox that spreads its RSA work over the cores that way. The ready line carries
 * `jwk`, this server's public signing JWK, so the bench can verify what it answers, and `mode`.
 */
import type { JsonWebKey } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { announce, closeServer, listenLoopback, stopOn } from '../lib/child-runtime';
import {
  bankClaimsOk,
  makeRsaKey,
  publicKeyFromJwk,
  signJwt,
  signJwtSync,
  verifyJwt,
  verifyJwtSync,
} from '../lib/rs256';

const bankJwk = process.env.BENCH_BANK_JWK;
if (!bankJwk) throw new Error('BENCH_BANK_JWK (the bank public JWK as JSON) is required');
const bankKey = publicKeyFromJwk(JSON.parse(bankJwk) as JsonWebKey);
const own = await makeRsaKey('crypto-floor-1');
const sessionHeader = { alg: 'RS256', typ: 'JWT', kid: own.kid };
const TTL = 900;

function send(res: ServerResponse, status: number, value: object): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const mode = process.env.BENCH_CRYPTO_FLOOR === 'async' ? 'async' : 'sync';
const unauthorized = { error: 'unauthorized', detail: 'CX-Authorization did not verify' };

const server = createServer((req, res) => {
  req.resume();
  const token = req.headers['cx-authorization'];
  if (mode === 'async') {
    void (async () => {
      const verified = typeof token === 'string' ? await verifyJwt(token, bankKey) : null;
      const now = Math.floor(Date.now() / 1000);
      if (!verified || !bankClaimsOk(verified.payload, now)) return send(res, 401, unauthorized);
      const { obj, sub } = verified.payload;
      const claims = { flow: 'sign-in', obj, sub, iat: now, exp: now + TTL };
      send(res, 200, { session_token: await signJwt(sessionHeader, claims, own.privateKey) });
    })().catch(() => send(res, 500, { error: 'internal' }));
    return;
  }
  const verified = typeof token === 'string' ? verifyJwtSync(token, bankKey) : null;
  const now = Math.floor(Date.now() / 1000);
  if (!verified || !bankClaimsOk(verified.payload, now)) return send(res, 401, unauthorized);
  const { obj, sub } = verified.payload;
  const claims = { flow: 'sign-in', obj, sub, iat: now, exp: now + TTL };
  send(res, 200, { session_token: signJwtSync(sessionHeader, claims, own.privateKey) });
});

const url = await listenLoopback(server);
stopOn(() => closeServer(server));
announce({ url, jwk: own.jwk, mode });
