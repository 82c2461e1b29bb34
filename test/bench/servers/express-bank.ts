/**
 * Bench baseline: the /user_auth a bank typically writes, on the usual npm stack: an express app,
 * a jwks-rsa client with its cache (and rate limit) for the service's keys, jsonwebtoken's
 * jwt.verify with the asymmetric algorithms DESIGN.md allows, then the same callback checks as
 * the real bank endpoints (flow = sign-in, obj a known customer, sub equal to the customer's
 * sub) and res.json(user). Nothing is recorded. A failed check answers 401.
 *
 * Argument: the customers JSON file (the `--users` format). Env BENCH_SERVICE_JWKS_URL.
 */
import express from 'express';
import jwt, { type GetPublicKeyOrSecret, type JwtPayload } from 'jsonwebtoken';
import jwksRsa from 'jwks-rsa';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { announce, closeServer, stopOn } from '../lib/child-runtime';

interface Customer {
  obj: string;
  sub?: string;
  external_id: string;
  phone: string;
  key: string;
  first_name?: string;
  last_name?: string;
  email?: string;
}

const usersFile = process.argv[2];
const jwksUri = process.env.BENCH_SERVICE_JWKS_URL;
if (!usersFile || !jwksUri) throw new Error('usage: BENCH_SERVICE_JWKS_URL=… express-bank.mjs <users.json>');
const customers = new Map((JSON.parse(readFileSync(usersFile, 'utf8')) as Customer[]).map((c) => [c.obj, c]));

const client = jwksRsa({
  jwksUri,
  cache: true,
  cacheMaxEntries: 5,
  cacheMaxAge: 10 * 60 * 1000,
  rateLimit: true,
  jwksRequestsPerMinute: 10,
});
const getKey: GetPublicKeyOrSecret = (header, callback) => {
  client.getSigningKey(header.kid, (err, key) => callback(err, key?.getPublicKey()));
};

const unauthorized = (res: express.Response, check: string) =>
  res.status(401).json({ error: 'unauthorized', check });

const app = express();
app.get('/user_auth', (req, res) => {
  const token = req.get('x-session-id');
  if (!token) return unauthorized(res, 'present');
  jwt.verify(
    token,
    getKey,
    { algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'], clockTolerance: 60 },
    (err, decoded) => {
      if (err || !decoded || typeof decoded === 'string') return unauthorized(res, 'signature');
      const claims = decoded as JwtPayload & { flow?: unknown; obj?: unknown };
      if (typeof claims.iat === 'number' && claims.iat > Date.now() / 1000 + 60)
        return unauthorized(res, 'iat');
      if (claims.flow !== 'sign-in') return unauthorized(res, 'flow');
      const customer = typeof claims.obj === 'string' ? customers.get(claims.obj) : undefined;
      if (!customer) return unauthorized(res, 'obj');
      if (customer.sub !== undefined ? claims.sub !== customer.sub : !claims.sub)
        return unauthorized(res, 'sub');
      const { external_id, first_name, last_name, email, phone, key } = customer;
      res.json({ external_id, first_name, last_name, email, phone, key });
    },
  );
});

const server: Server = await new Promise((resolve, reject) => {
  const s = app.listen(0, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
});
const addr = server.address();
if (addr === null || typeof addr === 'string') throw new Error('no TCP address');
stopOn(() => closeServer(server));
announce({ url: `http://127.0.0.1:${addr.port}` });
