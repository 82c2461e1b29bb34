/**
 * The budget with a margin (issue 24 item 2; DESIGN.md "Bank endpoints": "A callback that waits
 * for a JWKS fetch is answered by 900 ms after it arrived at the latest (401 `kid` naming the
 * slow host while the fetch goes on)"; the JWKS client makes at most one fetch per second
 * whatever arrives). Real parts: the bank on 127.0.0.1, JWKS hosts on 127.0.0.1 (fast, or slow:
 * answering after a delay), tokens signed in the test.
 *
 * The one timing bound here is the one DESIGN states, on the clock DESIGN names: "by 900 ms after
 * it arrived". Every answer's time from its arrival at the bank to its answer written is the
 * event's `duration_ms` (bank/callbacks.ts `answered`), read back for every callback of the run;
 * each must be under 900 ms (the bank stops waiting 750 ms after arrival). The old code waited for
 * the next allowed fetch and answered after 1,002–1,073 ms on that same clock. Times at the client
 * are not asserted: the client shares this process's two loaded cores with the bank, and its own
 * queueing of 25 concurrent requests is not the bank's answer time. The one-fetch-a-second rule is checked by counting fetches at the JWKS host: a fetch
 * starts at most once per 1,000 ms on the bank's clock, so two fetches reach the host at least
 * 1,000 ms apart less the difference of their trips (a fresh connection against a kept one: a
 * few ms; 50 ms allowed), and never more than one per started second of the run.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventStore } from '../../../electron/core/store';
import { cleanup, eventCount, makeServiceKey, serviceJwt, startBank, type ServiceKey } from './helpers';

afterAll(cleanup);

const ANSWER_BY_MS = 900;
/** Two fetches reach the host at least this far apart (see the file's comment). */
const MIN_GAP_MS = 950;

interface JwksHost {
  url: string;
  /** When each fetch arrived (performance.now() of this process). */
  fetches: number[];
  keys: Record<string, string>[];
  close(): Promise<void>;
}

/** A JWKS host that answers after `delayMs` (0: at once), counting every fetch. */
async function startJwksHost(keys: Record<string, string>[], delayMs: number): Promise<JwksHost> {
  const timers = new Set<NodeJS.Timeout>();
  const host: JwksHost = { url: '', fetches: [], keys, close: async () => undefined };
  const server = http.createServer((req, res) => {
    req.resume();
    host.fetches.push(performance.now());
    const answer = () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: host.keys }));
    if (delayMs === 0) return answer();
    const t = setTimeout(() => {
      timers.delete(t);
      answer();
    }, delayMs);
    timers.add(t);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/.well-known/jwks.json`;
  host.close = async () => {
    for (const t of timers) clearTimeout(t);
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return host;
}

/**
 * The bank's own arrival-to-answer times of its first `n` callbacks (their events' `duration_ms`),
 * once all are recorded (the bank records a callback just after answering it).
 */
async function bankTimes(store: EventStore, n: number): Promise<number[]> {
  await eventCount(store, 'callback', n);
  const page = await store.query({ kind: 'callback', limit: n + 10 });
  expect(page.total).toBe(n);
  return page.events.map((e) => e.duration_ms ?? Number.POSITIVE_INFINITY);
}

/** One callback: its status and body. */
async function callback(
  url: string,
  token: string,
): Promise<{ status: number; body: { check?: string; detail?: string } }> {
  const res = await fetch(`${url}/user_auth`, { headers: { 'X-Session-ID': token } });
  return { status: res.status, body: JSON.parse(await res.text()) as { check?: string } };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Tokens with kids the JWKS does not have (each new: nothing can be answered from a cache). */
async function unknownKidTokens(n: number, signer: ServiceKey): Promise<string[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      serviceJwt({ ...signer, kid: `unknown-${i}-${Math.random().toString(36).slice(2)}` }),
    ),
  );
}

function expectOneFetchPerSecond(fetches: number[], runMs: number): void {
  for (let i = 1; i < fetches.length; i++) {
    expect(fetches[i]! - fetches[i - 1]!, `gap between fetch ${i} and ${i + 1}`).toBeGreaterThanOrEqual(
      MIN_GAP_MS,
    );
  }
  expect(fetches.length).toBeLessThanOrEqual(Math.ceil(runMs / 1000) + 1);
}

describe('a callback waiting for the service JWKS is answered by 900 ms', () => {
  it('fast host that just fetched: unknown kids all answered under 900 ms, one fetch a second', async () => {
    const key = await makeServiceKey();
    const host = await startJwksHost([key.jwk], 0);
    try {
      const fx = await startBank({ key, jwksUrl: host.url });
      const started = performance.now();
      // The first fetch: a known kid, answered 200.
      expect((await callback(fx.url, await serviceJwt(key))).status).toBe(200);
      expect(host.fetches).toHaveLength(1);
      // Then unknown kids, one every 130 ms for about 2 s: some arrive when no fetch may start before
      // their deadline (answered at once), some wait for the next slot (answered when it lands).
      const tokens = await unknownKidTokens(16, key);
      const answers: Awaited<ReturnType<typeof callback>>[] = [];
      for (const token of tokens) {
        answers.push(await callback(fx.url, token));
        await sleep(130);
      }
      const runMs = performance.now() - started;
      for (const a of answers) {
        expect(a.status).toBe(401);
        expect(a.body.check).toBe('kid');
      }
      // DESIGN.md: by 900 ms after arrival, on the bank's clock (the first callback included).
      expect(Math.max(...(await bankTimes(fx.store, answers.length + 1)))).toBeLessThan(ANSWER_BY_MS);
      // Unknown kids are looked up (never blacklisted): more fetches than the first, one a second.
      expect(host.fetches.length).toBeGreaterThan(1);
      expectOneFetchPerSecond(host.fetches, runMs);
    } finally {
      await host.close();
    }
  }, 30_000);

  it('slow host: 401 `kid` naming it under 900 ms while the fetch goes on; its keys then serve', async () => {
    const key = await makeServiceKey();
    // Answers after 3 s: far past the wait, well under the client's 10 s fetch timeout.
    const host = await startJwksHost([key.jwk], 3000);
    try {
      const fx = await startBank({ key, jwksUrl: host.url });
      const first = await callback(fx.url, await serviceJwt(key));
      expect(first.status).toBe(401);
      expect(first.body.check).toBe('kid');
      expect(first.body.detail).toContain(`the service JWKS at ${host.url} did not answer within`);
      expect(first.body.detail).toContain('a callback is answered by 900 ms after it arrives');
      // A burst meanwhile: each answered in time, none makes another fetch while one is in flight.
      const burst = await Promise.all(
        (await unknownKidTokens(20, key)).map((token) => callback(fx.url, token)),
      );
      expect(burst.every((a) => a.status === 401 && a.body.check === 'kid')).toBe(true);
      // The first and the burst, each by 900 ms after it arrived (the host answers after 3 s).
      expect(Math.max(...(await bankTimes(fx.store, 1 + burst.length)))).toBeLessThan(ANSWER_BY_MS);
      expect(host.fetches).toHaveLength(1);
      // The fetch goes on; once it lands, the service's key passes (10 tries, 0.5 s apart).
      let status = 0;
      for (let i = 0; i < 10 && status !== 200; i++) {
        await sleep(500);
        status = (await callback(fx.url, await serviceJwt(key))).status;
      }
      expect(status).toBe(200);
    } finally {
      await host.close();
    }
  }, 30_000);

  it.each([
    ['fast', 0],
    ['slow (1.5 s)', 1500],
  ])(
    'under load, %s host: 8 waves of 25 concurrent unknown-kid callbacks, all under 900 ms, one fetch a second',
    async (_name, delayMs) => {
      const key = await makeServiceKey();
      const host = await startJwksHost([key.jwk], delayMs);
      try {
        const fx = await startBank({ key, jwksUrl: host.url });
        const started = performance.now();
        const answers: Awaited<ReturnType<typeof callback>>[] = [];
        // Bounded: 8 waves, 300 ms apart, 200 callbacks in all.
        for (let wave = 0; wave < 8; wave++) {
          const tokens = await unknownKidTokens(25, key);
          answers.push(...(await Promise.all(tokens.map((token) => callback(fx.url, token)))));
          await sleep(300);
        }
        const runMs = performance.now() - started;
        expect(answers).toHaveLength(200);
        expect(answers.every((a) => a.status === 401 && a.body.check === 'kid')).toBe(true);
        expect(Math.max(...(await bankTimes(fx.store, answers.length)))).toBeLessThan(ANSWER_BY_MS);
        expect(host.fetches.length).toBeGreaterThan(1);
        expectOneFetchPerSecond(host.fetches, runMs);
      } finally {
        await host.close();
      }
    },
    60_000,
  );
});
