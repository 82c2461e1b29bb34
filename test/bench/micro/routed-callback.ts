/**
 * A routed /user_auth through a team hub and an attached laptop (issue 30 "Performance": it adds
 * at most 5 ms at p50 and 20 ms at p99 over the laptop backend's own time on loopback, at 200
 * callbacks/s). The built CLI's `serve --team` (loopback, plain HTTP) and `attach --forward-to
 * --route sub=operator-*` run as their own processes; the backend and the service's JWKS run
 * here. In MICRO_ROUNDS interleaved rounds it sends MICRO_AMOUNT callbacks paced at MICRO_RATE a
 * second (lib/paced.ts: latency from when each was due) to the backend directly, then through
 * the hub, and prints each round's p50/p99 and the medians of the differences. Bounded in count
 * and time; every process it starts it stops by its PID. Not yet a target of `npm run bench`.
 * Run (after `node scripts/build.mjs`):
 *   npx esbuild test/bench/micro/routed-callback.ts --bundle --platform=node --format=esm \\
 *     --packages=external --outfile=dist/micro/routed-callback.mjs && node dist/micro/routed-callback.mjs
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runPaced } from '../lib/paced';
import { makeRsaKey } from '../lib/rs256';
import { median } from '../lib/stats';
import { makeTokenPool, rotate } from '../lib/tokens';

const RATE = Number(process.env.MICRO_RATE ?? 200);
const AMOUNT = Number(process.env.MICRO_AMOUNT ?? 2000);
const ROUNDS = Number(process.env.MICRO_ROUNDS ?? 3);
const CLI = resolve(process.env.DETS_CLI ?? 'dist/cli/dets-console.js');

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Spawns the CLI and resolves with its --json ready line (30 s at most). */
function ready(args: string[], children: ChildProcess[]): Promise<Record<string, string>> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error(`${args[0]}: no ready line in 30 s`)), 30_000);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(t);
        res(JSON.parse(out.slice(0, nl)) as Record<string, string>);
      }
    });
    child.on('exit', (code) => rej(new Error(`${args[0]} exited ${code}`)));
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'dets-routed-'));
  const children: ChildProcess[] = [];
  const key = await makeRsaKey('routed-bench');
  const pool = await makeTokenPool(key, 500);
  const body = JSON.stringify({ external_id: 'e', key: 'k', phone: '+4' });
  const backend = await listen((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  const jwks = await listen((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [key.jwk] }));
  });
  try {
    const data = join(dir, 'hub');
    const added = JSON.parse(
      execFileSync(
        process.execPath,
        [CLI, 'team', 'add', 'bench', '--role', 'operator', '--json', '--data-dir', data],
        {
          encoding: 'utf8',
        },
      ),
    ) as { token: string };
    const hub = await ready(
      [
        'serve',
        '--team',
        '--json',
        '--ui-port',
        '0',
        '--bank-port',
        '0',
        '--no-sandbox',
        '--data-dir',
        data,
        '--service-jwks-url',
        `${jwks.url}/api/v1/.well-known/jwks.json`,
      ],
      children,
    );
    const hubUrl = new URL('/', hub.ui!).href;
    await ready(
      [
        'attach',
        hubUrl,
        '--token',
        added.token,
        '--json',
        '--forward-to',
        backend.url,
        '--route',
        'sub=operator-*',
      ],
      children,
    );
    const next = rotate(pool);
    const target = (id: string, url: string) => ({
      id,
      title: id,
      url,
      nextRequest: () => ({
        method: 'GET' as const,
        path: '/user_auth',
        headers: { 'X-Session-ID': next().token },
      }),
    });
    const opts = {
      rate: RATE,
      amount: AMOUNT,
      connections: 32,
      maxSeconds: Math.ceil(AMOUNT / RATE) * 3 + 10,
    };
    // Warm-up: JWKS fetched, connections made, code paths compiled.
    await runPaced(target('routed', hub.bank!), { ...opts, amount: 300 });
    const d50: number[] = [];
    const d99: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const direct = await runPaced(target('backend', backend.url), opts);
      const routed = await runPaced(target('routed', hub.bank!), opts);
      const bad = routed.non2xx + routed.errors + routed.timeouts;
      d50.push(routed.latencyMs.p50 - direct.latencyMs.p50);
      d99.push(routed.latencyMs.p99 - direct.latencyMs.p99);
      console.log(
        `round ${r + 1}: backend p50 ${direct.latencyMs.p50.toFixed(2)} p99 ${direct.latencyMs.p99.toFixed(2)} ms; ` +
          `routed p50 ${routed.latencyMs.p50.toFixed(2)} p99 ${routed.latencyMs.p99.toFixed(2)} ms; ` +
          `${routed.latencies.length} answered, ${bad} not 2xx/failed`,
      );
    }
    console.log(
      `added by the route (median of ${ROUNDS} rounds): p50 +${median(d50).toFixed(2)} ms (target ≤ 5), ` +
        `p99 +${median(d99).toFixed(2)} ms (target ≤ 20) at ${RATE}/s; load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
  } finally {
    for (const c of children.reverse()) c.kill('SIGTERM');
    backend.server.close();
    jwks.server.close();
    await new Promise((r) => setTimeout(r, 1500));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
