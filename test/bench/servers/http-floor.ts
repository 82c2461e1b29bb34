/**
 * Bench target (b), the HTTP floor: a bare node:http server answering every request with one
 * constant JSON body, shaped and sized like an authenticate answer ({"session_token": "<JWT>"}),
 * so the difference to the other targets is the work, not the bytes.
 *
 * Env BENCH_HTTP_FLOOR_BODY, when set, is the body answered instead: a JSON text (sent as
 * application/json, e.g. a /user_auth answer of the same size as the bank's), or empty for a
 * 200 with no body (a notification's answer).
 */
import { createServer } from 'node:http';
import { announce, closeServer, listenLoopback, stopOn } from '../lib/child-runtime';

const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
const now = Math.floor(Date.now() / 1000);
const constantToken = [
  b64({ alg: 'RS256', typ: 'JWT', kid: 'http-floor' }),
  b64({
    flow: 'sign-in',
    obj: 'UA213223130000000000000000000',
    sub: 'operator-0@bank.example',
    iat: now,
    exp: now + 900,
  }),
  'A'.repeat(342), // an RSA-2048 signature is 256 bytes: 342 base64url characters
].join('.');
const custom = process.env.BENCH_HTTP_FLOOR_BODY;
const body = Buffer.from(custom ?? JSON.stringify({ session_token: constantToken }));
const headers: Record<string, string> =
  body.length > 0
    ? { 'content-type': 'application/json', 'content-length': String(body.length) }
    : { 'content-length': '0' };

const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, headers);
  res.end(body);
});

const url = await listenLoopback(server);
stopOn(() => closeServer(server));
announce({ url });
