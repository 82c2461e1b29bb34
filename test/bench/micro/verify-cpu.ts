/**
 * CPU per verdict on a callback's hot path (issue 11 item 5: a callback costs about its one RSA
 * verification), without HTTP: the node:crypto floor (crypto.verify + the payload's JSON), the
 * engine (verifyToken, lean, the key set in hand) and the bank's verifySessionToken (the real
 * JwksClient with the service's set cached and fresh, a customer directory). Each call is
 * awaited before the next, so every promise and its microtasks are charged to the call.
 * Prints process.cpuUsage (every thread, GC helpers included) per call, the median of the
 * rounds. Run pinned, e.g.
 *   npx esbuild test/bench/micro/verify-cpu.ts --bundle --platform=node --format=esm \\
 *     --packages=external --outfile=dist/micro/verify-cpu.mjs && taskset -c 1 node dist/micro/verify-cpu.mjs
 * Settings: MICRO_N (calls per round, default 40000), MICRO_ROUNDS (5).
 */
import { verify as cryptoVerify } from 'node:crypto';
import { verifySessionToken } from '../../../electron/core/bank/verify';
import { JwksClient, keySetFromJwks, verifyToken } from '../../../electron/core/jwt';
import { makeRsaKey } from '../lib/rs256';
import { makeTokenPool } from '../lib/tokens';

const N = Number(process.env.MICRO_N ?? 40_000);
const ROUNDS = Number(process.env.MICRO_ROUNDS ?? 5);
const POOL = 512;

const key = await makeRsaKey('service-key-1');
const pool = await makeTokenPool(key, POOL);
const tokens = pool.map((p) => p.token);
const tokenAt = (i: number): string => tokens[i % POOL] as string;
const jwksDoc = { keys: [{ ...key.jwk }] };
const url = 'http://127.0.0.1:1/jwks.json';
const set = keySetFromJwks(jwksDoc, { source: 'jwks-url', url });
const customers = new Map(pool.map((p) => [p.claims.obj, { obj: p.claims.obj, sub: p.claims.sub }]));
const jwks = new JwksClient({
  url: () => url,
  fetch: (async () =>
    new Response(JSON.stringify(jwksDoc), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    })) as typeof fetch,
  now: Date.now,
  onChange: () => undefined,
});
await jwks.reload();

const targets: Record<string, (token: string) => unknown> = {
  floor: (token) => {
    const last = token.lastIndexOf('.');
    const first = token.indexOf('.');
    const ok = cryptoVerify(
      'sha256',
      Buffer.from(token.slice(0, last)),
      key.publicKey,
      Buffer.from(token.slice(last + 1), 'base64url'),
    );
    return ok && JSON.parse(Buffer.from(token.slice(first + 1, last), 'base64url').toString('utf8'));
  },
  engine: (token) =>
    verifyToken({
      token,
      header: 'X-Session-ID',
      keys: { kind: 'set', set },
      nowSeconds: Math.floor(Date.now() / 1000),
      mode: 'first-failure',
      lean: true,
    }),
  bank: (token) =>
    verifySessionToken(token, {
      jwks,
      customer: (obj) => customers.get(obj) as never,
      subsFor: async () => [],
      nowSeconds: () => Math.floor(Date.now() / 1000),
      noUrlHint: 'none',
      deadlineMs: Date.now() + 1000,
      lean: true,
    }),
};

// Every target must pass every token, or the figure measures a failure path.
for (const [name, run] of Object.entries(targets)) {
  const v = (await run(tokenAt(0))) as { ok?: boolean } | false;
  if (v === false || (typeof v === 'object' && v.ok === false))
    throw new Error(`${name} fails a valid token`);
}

const results: Record<string, number[]> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(targets)) {
    const start = process.cpuUsage();
    for (let i = 0; i < N; i++) {
      const r = run(tokenAt(i));
      if (r instanceof Promise) await r;
    }
    const used = process.cpuUsage(start);
    (results[name] ??= []).push((used.user + used.system) / N);
  }
}
jwks.stop();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
for (const [name, xs] of Object.entries(results)) {
  console.log(
    `${name.padEnd(8)} ${median(xs).toFixed(1)} µs CPU/call (rounds: ${xs.map((x) => x.toFixed(1)).join(', ')})`,
  );
}
