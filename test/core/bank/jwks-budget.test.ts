/**
 * The callback's 1 s budget against a slow JWKS host (issue 11, DESIGN.md "Bank endpoints"): a
 * callback never waits for a fetch past its budget; it is answered 401 `kid` naming the slow
 * host, the fetch goes on, and its result serves the next callbacks. The host is asked at most
 * once a second however many callbacks arrive.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, get, makeServiceKey, serviceJwt, startBank } from './helpers';

afterAll(cleanup);

describe('a slow JWKS host', () => {
  it('costs a callback at most its budget, and the late answer serves the next callbacks', async () => {
    const key = await makeServiceKey();
    let hits = 0;
    const timers = new Set<NodeJS.Timeout>();
    const slow = http.createServer((_req, res) => {
      hits += 1;
      // Answers after 3 s: far over the 1 s budget, well under the client's fetch timeout.
      const t = setTimeout(() => {
        timers.delete(t);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [key.jwk] }));
      }, 3000);
      timers.add(t);
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/api/v1/.well-known/jwks.json`;
    try {
      const fx = await startBank({ key, jwksUrl: url });
      const first = await get(`${fx.url}/user_auth`, await serviceJwt(key));
      expect(first.status).toBe(401);
      expect(first.body).toMatchObject({ check: 'kid' });
      expect((first.body as { detail: string }).detail).toContain(
        `the service JWKS at ${url} did not answer within the callback's 1 s budget`,
      );
      // A burst meanwhile: each is answered, none makes another fetch while one is in flight.
      const burst = await Promise.all(
        Array.from(
          { length: 20 },
          async () => (await get(`${fx.url}/user_auth`, await serviceJwt(key))).status,
        ),
      );
      expect(burst.every((s) => s === 401)).toBe(true);
      expect(hits).toBe(1);
      // The fetch goes on; once it lands, callbacks pass (bounded wait: 10 tries, 0.5 s apart).
      let status = 0;
      for (let i = 0; i < 10 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 500));
        status = (await get(`${fx.url}/user_auth`, await serviceJwt(key))).status;
      }
      expect(status).toBe(200);
      expect(hits).toBe(1);
    } finally {
      for (const t of timers) clearTimeout(t);
      slow.closeAllConnections();
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });
});
