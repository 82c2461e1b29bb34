/**
 * Bench baseline for the bank suite (issue 11), the `node:crypto` verifying floor: what one
 * /user_auth costs when it does the cryptography and the checks and nothing else. A plain
 * node:http server takes X-Session-ID, splits the token once, decodes its header, verifies RS256
 * with `crypto.verify` against a KeyObject cached per kid (built once at start from the same
 * service JWKS the bank uses), checks exp/iat (integers, 60 s leeway), flow and obj (a customer
 * Map) and sub, and answers the same spec 2.5 JSON body. No routing, no record, no library: on
 * one core /user_auth cannot be faster than this without skipping work. A failed check answers
 * 401 naming it.
 *
 * Argument: the customers JSON file (the `--users` format). Env BENCH_SERVICE_JWKS_URL.
 * Env BENCH_FLOOR_TURNS=1: the same handler answering a turn at a time, as the console's
 * listeners do (electron/core/http/listener.ts turnBatched): the bank suite's "crypto floor in
 * turns", printed beside the plain floor so the bank's ratio is never read as beating the
 * crypto.
 */
import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { turnBatched } from '../../../electron/core/http/listener';
import { announce, closeServer, listenLoopback, stopOn } from '../lib/child-runtime';
import type { BenchCustomer } from '../lib/customers';

const usersFile = process.argv[2];
const jwksUrl = process.env.BENCH_SERVICE_JWKS_URL;
if (!usersFile || !jwksUrl) throw new Error('usage: BENCH_SERVICE_JWKS_URL=… verify-floor.mjs <users.json>');
const customers = new Map(
  (JSON.parse(readFileSync(usersFile, 'utf8')) as BenchCustomer[]).map((c) => [c.obj, c]),
);

const res = await fetch(jwksUrl, { signal: AbortSignal.timeout(10_000) });
if (!res.ok) throw new Error(`JWKS ${jwksUrl} answered ${res.status}`);
const keys = new Map<string, KeyObject>();
for (const jwk of ((await res.json()) as { keys: (JsonWebKey & { kid?: string })[] }).keys) {
  if (typeof jwk.kid === 'string' && jwk.kty === 'RSA')
    keys.set(jwk.kid, createPublicKey({ key: jwk, format: 'jwk' }));
}

const LEEWAY = 60;
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

function answer(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { ...JSON_HEADERS, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const refuse = (res: ServerResponse, check: string) =>
  answer(res, 401, JSON.stringify({ error: 'unauthorized', check }));

const decode = (segment: string): unknown => JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));

function handle(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  const token = req.headers['x-session-id'];
  if (typeof token !== 'string' || token === '') return refuse(res, 'present');
  const first = token.indexOf('.');
  const last = token.lastIndexOf('.');
  if (first <= 0 || last === first || last === token.length - 1) return refuse(res, 'structure');
  let header: { alg?: unknown; kid?: unknown; crit?: unknown };
  let payload: Record<string, unknown>;
  try {
    header = decode(token.slice(0, first)) as typeof header;
    payload = decode(token.slice(first + 1, last)) as typeof payload;
  } catch {
    return refuse(res, 'structure');
  }
  if (header?.alg !== 'RS256') return refuse(res, 'alg');
  if (header.crit !== undefined) return refuse(res, 'crit');
  const key = typeof header.kid === 'string' ? keys.get(header.kid) : undefined;
  if (!key) return refuse(res, 'kid');
  const signature = Buffer.from(token.slice(last + 1), 'base64url');
  if (!verify('sha256', Buffer.from(token.slice(0, last)), key, signature)) return refuse(res, 'signature');
  if (typeof payload !== 'object' || payload === null) return refuse(res, 'structure');
  const now = Math.floor(Date.now() / 1000);
  const { exp, iat, flow, obj, sub } = payload;
  if (!Number.isInteger(exp) || (exp as number) <= now - LEEWAY) return refuse(res, 'exp');
  if (iat !== undefined && (!Number.isInteger(iat) || (iat as number) > now + LEEWAY))
    return refuse(res, 'iat');
  if (flow !== 'sign-in') return refuse(res, 'flow');
  const c = typeof obj === 'string' ? customers.get(obj) : undefined;
  if (!c) return refuse(res, 'obj');
  if (sub !== c.sub) return refuse(res, 'sub');
  // Spec 2.5: external_id, phone, key; names and email as the customer has them.
  answer(
    res,
    200,
    JSON.stringify({
      external_id: c.external_id,
      phone: c.phone,
      key: c.key,
      first_name: c.first_name,
      last_name: c.last_name,
      email: c.email,
    }),
  );
}

const inTurns = process.env.BENCH_FLOOR_TURNS === '1';
const server = createServer(inTurns ? turnBatched(handle) : handle);
const url = await listenLoopback(server);
stopOn(() => closeServer(server));
announce({ url, kids: [...keys.keys()], turns: inTurns });
