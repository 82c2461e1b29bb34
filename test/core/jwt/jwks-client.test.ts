/**
 * The service JWKS client (DESIGN.md "Bank endpoints"): against real JWKS hosts on 127.0.0.1
 * that count their requests, with real RSA keys. The burst and new-kid tests run on the real
 * clock; the backoff and staleness tests drive a controllable clock (fetches then start only
 * when a call asks, so the counts are exact).
 */
import { randomUUID, type JsonWebKey } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fetchJwks } from '../../../electron/core/jwt/fetch-jwks';
import { JwksClient, type JwksClientOptions, type JwksLookup } from '../../../electron/core/jwt/jwks-client';
import { startFakeServer, type FakeServer, type Received } from '../../support/fake-server';
import { rsaKeyPair } from '../../support/rsa-pair';

type Jwk = JsonWebKey & { kid: string };

function rsaJwk(kid: string): Jwk {
  const { publicKey } = rsaKeyPair({ modulusLength: 2048 });
  return { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
}

let keyA: Jwk;
let keyB: Jwk;
let keyA2: Jwk;
beforeAll(() => {
  keyA = rsaJwk('svc-a');
  keyB = rsaJwk('svc-b');
  keyA2 = { ...rsaJwk('x'), kid: 'svc-a' };
});

const servers: FakeServer[] = [];
const clients: JwksClient[] = [];
const timers = new Set<ReturnType<typeof setTimeout>>();
afterEach(async () => {
  for (const c of clients.splice(0)) c.stop();
  for (const t of timers) clearTimeout(t);
  timers.clear();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const json = (res: ServerResponse, body: unknown, status = 200) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** A JWKS host; `respond` decides each answer. */
async function host(respond: (req: Received, res: ServerResponse) => void): Promise<FakeServer> {
  const s = await startFakeServer(respond);
  servers.push(s);
  return s;
}

const hits = (s: FakeServer, path = '/jwks.json') => s.received.filter((r) => r.url === path).length;

function client(url: string, over: Partial<JwksClientOptions> = {}): JwksClient {
  const c = new JwksClient({ url: () => url, fetch, now: Date.now, onChange: () => undefined, ...over });
  clients.push(c);
  return c;
}

/** Resolves on the client's next onChange (bounded: rejects after `ms`). */
function changes(): { options: Pick<JwksClientOptions, 'onChange'>; next: (ms: number) => Promise<void> } {
  let wake: (() => void) | null = null;
  return {
    options: { onChange: () => wake?.() },
    next: (ms) =>
      new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no change within ${ms} ms`)), ms);
        timers.add(t);
        wake = () => {
          clearTimeout(t);
          wake = null;
          resolve();
        };
      }),
  };
}

const hasKid = (r: JwksLookup, kid: string) => r.set?.kids.includes(kid) ?? false;

describe('fetchJwks redirects', () => {
  it('follows a redirect within the same origin', async () => {
    const s = await host((req, res) =>
      req.url === '/old' ? res.writeHead(301, { location: '/jwks.json' }).end() : json(res, { keys: [keyA] }),
    );
    const doc = await fetchJwks(`${s.url}/old`, { fetch });
    expect(doc.keys.map((k) => k.kid)).toEqual(['svc-a']);
  });

  it('refuses a redirect to another origin, naming both, and never asks there', async () => {
    const other = await host((_req, res) => json(res, { keys: [keyB] }));
    const s = await host((_req, res) => res.writeHead(302, { location: `${other.url}/jwks.json` }).end());
    await expect(fetchJwks(`${s.url}/jwks.json`, { fetch })).rejects.toMatchObject({
      code: 'JWKS_FETCH_FAILED',
      message: expect.stringContaining(`redirected from origin ${s.url} to another origin, ${other.url}`),
    });
    expect(other.received).toHaveLength(0);
  });

  it('stops a redirect loop at the first repeated URL', async () => {
    const s = await host((req, res) =>
      res.writeHead(307, { location: req.url === '/jwks.json' ? '/b' : '/jwks.json' }).end(),
    );
    await expect(fetchJwks(`${s.url}/jwks.json`, { fetch })).rejects.toMatchObject({
      message: expect.stringContaining(`redirects in a loop (back to ${s.url}/jwks.json)`),
    });
    expect(s.received.map((r) => r.url)).toEqual(['/jwks.json', '/b']);
  });

  it('gives up after 5 redirects', async () => {
    const s = await host((req, res) => {
      const n = Number(req.url?.slice(3) ?? 0);
      res.writeHead(302, { location: `/r/${n + 1}` }).end();
    });
    await expect(fetchJwks(`${s.url}/r/0`, { fetch })).rejects.toMatchObject({
      message: expect.stringContaining('redirected more than 5 times'),
    });
    expect(s.received).toHaveLength(6);
  });
});

describe('JwksClient against a working host', () => {
  it('fetches once, then answers a known kid from the cache without the network', async () => {
    const s = await host((_req, res) => json(res, { keys: [keyA, keyB] }));
    const c = client(`${s.url}/jwks.json`);
    const first = await c.keySetFor('svc-a', Date.now() + 1000);
    expect(first).toMatchObject({
      detail: null,
      state: { kids: ['svc-a', 'svc-b'], stale: false, error: null },
    });
    expect(hasKid(first, 'svc-a')).toBe(true);
    const again = await c.keySetFor('svc-b', Date.now() + 1000);
    expect(again.set).toBe(first.set);
    expect(hits(s)).toBe(1);
  });

  it('follows a same-origin redirect to the keys', async () => {
    const s = await host((req, res) =>
      req.url === '/jwks.json'
        ? res.writeHead(308, { location: '/v2/jwks.json' }).end()
        : json(res, { keys: [keyA] }),
    );
    const r = await client(`${s.url}/jwks.json`).keySetFor('svc-a', Date.now() + 1000);
    expect(hasKid(r, 'svc-a')).toBe(true);
  });

  it('never trusts keys behind a cross-origin redirect', async () => {
    const other = await host((_req, res) => json(res, { keys: [keyA] }));
    const s = await host((_req, res) => res.writeHead(302, { location: `${other.url}/jwks.json` }).end());
    const r = await client(`${s.url}/jwks.json`).keySetFor('svc-a', Date.now() + 1000);
    expect(r.set).toBeNull();
    expect(r.state.kids).toEqual([]);
    expect(r.detail).toContain(`redirected from origin ${s.url} to another origin, ${other.url}`);
    expect(other.received).toHaveLength(0);
  });

  it('lists a kid that appears twice in duplicates, and in kids once', async () => {
    const s = await host((_req, res) => json(res, { keys: [keyA, keyB, keyA2] }));
    const r = await client(`${s.url}/jwks.json`).keySetFor('svc-a', Date.now() + 1000);
    expect(r.state).toMatchObject({ kids: ['svc-a', 'svc-b'], duplicates: ['svc-a'], rejected: [] });
  });

  it('lets a slow host (5 s) miss the deadline, names it, and serves the next call with its keys', async () => {
    const change = changes();
    const s = await host((_req, res) => {
      const t = setTimeout(() => json(res, { keys: [keyA] }), 5000);
      timers.add(t);
    });
    const url = `${s.url}/jwks.json`;
    const c = client(url, change.options);
    const late = await c.keySetFor('svc-a', Date.now() + 1000);
    const keys = change.next(9000); // the keys land about 4 s later
    expect(late.set).toBeNull();
    expect(late.detail).toBe(
      `the service JWKS at ${url} did not answer within the callback's 1 s budget; the fetch continues and will serve the next callbacks`,
    );
    await keys;
    const next = await c.keySetFor('svc-a', Date.now() + 1000);
    expect(hasKid(next, 'svc-a')).toBe(true);
    expect(next.detail).toBeNull();
    expect(hits(s)).toBe(1);
  }, 15_000);
});

/** Hosts that fail, each answering every request the same way; `entry` is the JWKS URL's path. */
const failing: Record<string, { respond: (req: Received, res: ServerResponse) => void; detail: RegExp }> = {
  'HTTP 500': {
    respond: (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('oops'),
    detail:
      /^the service JWKS could not be loaded: JWKS URL \S+ answered HTTP 500 Internal Server Error, not 200/,
  },
  HTML: {
    respond: (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>sign in</html>'),
    detail: /^the service JWKS could not be loaded: JWKS from \S+ is not JSON \(content-type text\/html\)/,
  },
  'a body over 1 MiB': {
    respond: (_req, res) => {
      res.on('error', () => undefined);
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 40 && !res.destroyed; i++) res.write(chunk); // 2.5 MiB, chunked: no length
      res.end();
    },
    detail: /answered more than 1048576 bytes: not a JWK set/,
  },
  'a redirect loop': {
    respond: (req, res) =>
      res.writeHead(302, { location: req.url === '/jwks.json' ? '/again' : '/jwks.json' }).end(),
    detail: /redirects in a loop/,
  },
};

describe('JwksClient against a failing host with no key set yet', () => {
  it.each(Object.keys(failing))('names the failure: %s', async (name) => {
    const f = failing[name] as (typeof failing)[string];
    const s = await host(f.respond);
    const r = await client(`${s.url}/jwks.json`).keySetFor('svc-a', Date.now() + 1000);
    expect(r.set).toBeNull();
    expect(r.detail).toMatch(f.detail);
    expect(r.state).toMatchObject({ stale: false, kids: [], error: expect.stringContaining(s.url) });
    expect(hits(s)).toBe(1);
  });

  it('hits a failing host (500, HTML, a loop) at most once a second under a burst of 200 callbacks', async () => {
    const names = ['HTTP 500', 'HTML', 'a redirect loop'];
    const hosts = await Promise.all(names.map((n) => host((failing[n] as (typeof failing)[string]).respond)));
    const cs = hosts.map((s) => client(`${s.url}/jwks.json`));
    const started = Date.now();
    const calls: Promise<JwksLookup>[] = [];
    for (let i = 0; i < 200; i++) {
      for (const c of cs) calls.push(c.keySetFor(randomUUID(), Date.now() + 1000));
      await sleep(15);
    }
    const answers = await Promise.all(calls);
    for (const c of cs) c.stop();
    const elapsed = Date.now() - started;
    // One fetch starts at most every second: in `elapsed` ms, at most floor(elapsed / 1000) + 1.
    const bound = Math.floor(elapsed / 1000) + 1;
    for (const s of hosts) {
      expect(hits(s)).toBeGreaterThanOrEqual(1);
      expect(hits(s)).toBeLessThanOrEqual(bound);
    }
    // The loop's second URL is asked once per fetch, not once per callback.
    expect(hosts[2]?.received.length).toBeLessThanOrEqual(2 * hits(hosts[2] as FakeServer));
    expect(answers.every((a) => a.set === null && a.detail !== null)).toBe(true);
  }, 20_000);
});

describe('JwksClient under a burst of unknown kids', () => {
  it('asks the host at most once a second, and accepts a newly published kid within 2 s', async () => {
    let published = [keyA];
    const s = await host((_req, res) => json(res, { keys: published }));
    const c = client(`${s.url}/jwks.json`);
    expect(hasKid(await c.keySetFor('svc-a', Date.now() + 1000), 'svc-a')).toBe(true);

    const started = Date.now();
    const calls: Promise<JwksLookup>[] = [];
    for (let i = 0; i < 200; i++) {
      calls.push(c.keySetFor(randomUUID(), Date.now() + 1000));
      await sleep(15);
    }
    const answers = await Promise.all(calls);
    expect(answers.every((a) => a.set?.kids.includes('svc-a'))).toBe(true);

    // The service publishes a new key after the burst: the first token carrying it, given 2 s,
    // finds it.
    published = [keyA, keyB];
    const fresh = await c.keySetFor('svc-b', Date.now() + 2000);
    expect(hasKid(fresh, 'svc-b')).toBe(true);
    expect(fresh.detail).toBeNull();

    const elapsed = Date.now() - started;
    // the first fetch, then at most one per started second of burst and new kid
    expect(hits(s)).toBeLessThanOrEqual(1 + Math.floor(elapsed / 1000) + 1);
    expect(hits(s)).toBeGreaterThanOrEqual(3);
  }, 20_000);
});

describe('JwksClient: kids asked for while a fetch is in flight', () => {
  /** A host that answers 300 ms late with the keys published when the request arrived. */
  async function lateHost(published: () => Jwk[]) {
    return host((_req, res) => {
      const keys = published();
      const t = setTimeout(() => json(res, { keys }), 300);
      timers.add(t);
    });
  }

  it('fetches again for a kid the fetch in flight did not bring, though its caller gave up', async () => {
    let published = [keyA];
    const s = await lateHost(() => published);
    const c = client(`${s.url}/jwks.json`);
    const first = c.keySetFor('svc-a', Date.now() + 2000);
    await sleep(50);
    published = [keyA, keyB]; // too late for the request in flight
    const gaveUp = await c.keySetFor('svc-b', Date.now() + 50);
    expect(gaveUp.detail).toMatch(/did not answer within the callback's \d+ ms budget/);
    expect(hasKid(await first, 'svc-b')).toBe(false);
    // The next fetch starts a second after the first one, asked for by nothing else (state()
    // asks for no fetch).
    for (let i = 0; i < 50 && !c.state().kids.includes('svc-b'); i++) await sleep(100);
    expect(hasKid(await c.keySetFor('svc-b', Date.now()), 'svc-b')).toBe(true);
    expect(hits(s)).toBe(2);
  });

  it('does not fetch again for a kid the fetch in flight brought', async () => {
    const s = await lateHost(() => [keyA, keyB]);
    const c = client(`${s.url}/jwks.json`);
    const first = c.keySetFor('svc-a', Date.now() + 2000);
    await sleep(50);
    const second = c.keySetFor('svc-b', Date.now() + 2000);
    expect(hasKid(await first, 'svc-a')).toBe(true);
    expect(hasKid(await second, 'svc-b')).toBe(true);
    await sleep(1500);
    expect(hits(s)).toBe(1);
  });
});

/** A clock the test moves; the client's fetches then start only when a call asks for one. */
function manualClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, set: (ms: number) => void (t = start + ms) };
}

/** A host serving keyA, or the status `answer` sets; a client of it on a controlled clock. */
async function switchable(status: number) {
  const now = { status };
  const s = await host((_req, res) =>
    now.status === 200 ? json(res, { keys: [keyA] }) : res.writeHead(now.status).end(),
  );
  const clock = manualClock();
  const c = client(`${s.url}/jwks.json`, { now: clock.now });
  return { s, c, clock, answer: (next: number) => void (now.status = next) };
}

describe('JwksClient on a controlled clock', () => {
  it('backs off while the host fails (1 s, 2 s, 4 s … 30 s), and a Refresh skips the backoff', async () => {
    const { s, c, clock, answer } = await switchable(500);
    // [clock, whether a fetch may start, the host's count after the call, the detail]. A call
    // that may fetch waits for it (the clock does not move meanwhile); one that may not gets its
    // answer at once (deadline = now).
    const steps: [number, boolean, number, RegExp][] = [
      [0, true, 1, /HTTP 500 .*\(next try in 1 s\)$/],
      [999, false, 1, /\(next try in 1 ms\)$/],
      [1000, true, 2, /\(next try in 2 s\)$/],
      [2999, false, 2, /\(next try in 1 ms\)$/],
      [3000, true, 3, /\(next try in 4 s\)$/],
      [7000, true, 4, /\(next try in 8 s\)$/],
      [15_000, true, 5, /\(next try in 16 s\)$/],
      [31_000, true, 6, /\(next try in 30 s\)$/],
      [32_000, false, 6, /\(next try in 29 s\)$/],
    ];
    for (const [at, fetches, count, detail] of steps) {
      clock.set(at);
      const r = await c.keySetFor(`kid-${at}`, clock.now() + (fetches ? 5000 : 0));
      expect(r.detail).toMatch(detail);
      expect(hits(s)).toBe(count);
    }

    // Refresh: the backoff (until 61 000) is skipped, one fetch a second is not.
    answer(200);
    const state = await c.reload();
    expect(hits(s)).toBe(7);
    expect(state).toMatchObject({ kids: ['svc-a'], stale: false, error: null });
  });

  it('serves the last good set stale, flagged with the error, while the host fails', async () => {
    const { s, c, clock, answer } = await switchable(200);
    expect(hasKid(await c.keySetFor('svc-a', clock.now() + 5000), 'svc-a')).toBe(true);

    answer(503);
    clock.set(1000);
    const unknown = await c.keySetFor('svc-new', clock.now() + 5000);
    expect(hits(s)).toBe(2);
    expect(unknown.state).toMatchObject({
      kids: ['svc-a'],
      stale: true,
      error: expect.stringContaining('answered HTTP 503'),
    });
    expect(unknown.set?.kids).toEqual(['svc-a']);
    expect(unknown.detail).toMatch(
      /^the service JWKS could not be refreshed: .*HTTP 503.*the keys fetched at .* are served, stale$/,
    );

    // A known kid is still answered at once, from the stale set, without the network.
    const known = await c.keySetFor('svc-a', clock.now());
    expect(known).toMatchObject({ detail: null, state: { stale: true } });
    expect(hasKid(known, 'svc-a')).toBe(true);
    expect(hits(s)).toBe(2);
  });

  it('forgets the old keys when the URL changes', async () => {
    const s = await host((req, res) => json(res, { keys: req.url === '/one' ? [keyA] : [keyB] }));
    const clock = manualClock();
    let url = `${s.url}/one`;
    const c = client(url, { now: clock.now, url: () => url });
    expect(hasKid(await c.keySetFor('svc-a', clock.now() + 5000), 'svc-a')).toBe(true);

    url = `${s.url}/two`;
    clock.set(1000); // the URL setting is read again after a second
    const r = await c.keySetFor('svc-a', clock.now() + 5000);
    expect(r.state).toMatchObject({ url, kids: ['svc-b'] });
    expect(hasKid(r, 'svc-a')).toBe(false);
  });

  it('says so when no JWKS URL is configured, and fetches nothing', async () => {
    const r = await client('unused', { url: async () => null }).keySetFor('svc-a', Date.now() + 1000);
    expect(r).toMatchObject({ set: null, detail: 'no service JWKS URL is configured', state: { url: null } });
  });

  it('gives up a fetch after fetchTimeoutMs', async () => {
    const s = await host(() => undefined); // never answers
    const r = await client(`${s.url}/jwks.json`, { fetchTimeoutMs: 200 }).keySetFor(
      'svc-a',
      Date.now() + 1000,
    );
    expect(r.detail).toMatch(/did not answer within 200 ms/);
  });
});
