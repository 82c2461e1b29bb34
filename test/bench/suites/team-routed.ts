/**
 * Issue 30 "Performance": a routed /user_auth through the team hub and an attached laptop adds
 * at most 5 ms at p50 and 20 ms at p99 over the laptop backend's own time on loopback, at 200
 * callbacks/s. The built CLI's `serve --team` (loopback, plain HTTP) and `attach --forward-to
 * --route obj=UA21*` run as their own processes, the backend (servers/laptop-backend.ts) and the
 * service's JWKS as children too; every one is stopped by its PID (lib/children.ts).
 *
 * Per round, paced at BENCH_ROUTED_RATE a second (lib/paced.ts: latency from when each request
 * was due), BENCH_ROUTED_AMOUNT callbacks each:
 *   backend   straight to the laptop's backend (its own time: the baseline)
 *   routed    to the hub with tokens whose obj the route claims (UA21…): hub → attach → backend;
 *             every answer must be the backend's body (a hub answering itself breaks the bench)
 *   hub       to the hub with tokens no route claims (+38050…): the hub answers itself, to tell
 *             the hub's own tail from the relay's
 * The targets judge the medians over rounds of routed − backend at p50 and p99.
 * BENCH_PROFILE=hub,attach writes those processes' CPU profiles to .bench/profiles/.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startChild, type ChildServer } from '../lib/children';
import { BenchBroken } from '../lib/errors';
import type { LoadResult } from '../lib/load';
import { runPaced } from '../lib/paced';
import { median } from '../lib/stats';
import { below, startServiceSide } from '../lib/steps';
import type { SuiteContext } from '../lib/suite';
import type { TargetVerdict } from '../lib/stats';
import { makeTokenPool, rotate, type PoolToken } from '../lib/tokens';

const CONNECTIONS = 32;

/** What the routed measurement adds to the team suite's result. */
export interface RoutedResult {
  figures: Record<string, number | string | null>;
  verdicts: TargetVerdict[];
  notes: string[];
}

/** Starts hub, laptop, backend and JWKS, runs the interleaved rounds, stops every child. */
export async function measureRouted(ctx: SuiteContext, rounds: number): Promise<RoutedResult> {
  const rate = Number(process.env.BENCH_ROUTED_RATE ?? 200);
  const amount = Number(process.env.BENCH_ROUTED_AMOUNT ?? 2000);
  const cli = join(ctx.root, 'dist/cli/dets-console.js');
  if (!existsSync(cli))
    throw new BenchBroken(`team suite: ${cli} is missing; build it first (node scripts/build.mjs)`);
  const children: ChildServer[] = [];
  try {
    const side = await startServiceSide(ctx, 'dets-bench-routed-');
    children.push(side.jwks);
    const backend = await startChild({
      id: 'laptop-backend',
      args: [join(ctx.buildDir, 'servers/laptop-backend.mjs')],
    });
    children.push(backend);
    const data = await ctx.tmpDir('dets-bench-hub-');
    const token = await addOperator(cli, data);
    const hub = await startChild({
      id: 'hub',
      args: [
        ...ctx.nodeFlags('hub'),
        cli,
        'serve',
        '--team',
        '--json',
        '--ui-port',
        '0',
        '--bank-port',
        '0',
        '--no-sandbox',
      ].concat(['--data-dir', data, '--service-jwks-url', side.jwksUrl]),
      urlOf: (r) => r.bank,
    });
    children.push(hub);
    const hubUi = new URL('/', String(hub.ready.ui)).href;
    children.push(
      await startChild({
        id: 'attach',
        args: [
          ...ctx.nodeFlags('attach'),
          cli,
          'attach',
          hubUi,
          '--token',
          token,
          '--json',
          '--forward-to',
          backend.url,
          '--route',
          'obj=UA21*',
        ],
        urlOf: (r) => new URL(String(r.ui)).origin,
      }),
    );
    const pool = await makeTokenPool(side.service, 1000);
    const routedTokens = pool.filter((t) => t.claims.obj.startsWith('UA21'));
    const hubTokens = pool.filter((t) => !t.claims.obj.startsWith('UA21'));
    // The route works before it is measured: a claimed token's answer is the backend's own body.
    const expected = await (await fetch(`${backend.url}/user_auth`)).text();
    const probe = await fetch(`${hub.url}/user_auth`, {
      headers: { 'X-Session-ID': routedTokens[0]!.token },
    });
    const got = await probe.text();
    if (probe.status !== 200 || got !== expected)
      throw new BenchBroken(
        `team: a routed /user_auth was not relayed to the backend: ${probe.status} ${got.slice(0, 200)}`,
      );
    const run = (id: string, url: string, tokens: PoolToken[], n = amount) =>
      runPaced(
        {
          id,
          title: id,
          url,
          nextRequest: ((next) => () => ({
            method: 'GET' as const,
            path: '/user_auth',
            headers: { 'X-Session-ID': next().token },
          }))(rotate(tokens)),
        },
        { rate, amount: n, connections: CONNECTIONS, maxSeconds: Math.ceil(n / rate) * 3 + 10 },
      );
    // Warm-up: the JWKS fetched, the connections made, both code paths compiled.
    await run('routed', hub.url, routedTokens, 400);
    await run('hub', hub.url, hubTokens, 200);
    const d50: number[] = [];
    const d99: number[] = [];
    const hub99: number[] = [];
    const fallbacks: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const direct = await run('backend', backend.url, routedTokens);
      const routed = await run('routed', hub.url, routedTokens);
      const own = await run('hub', hub.url, hubTokens);
      const broken = routed.errors + routed.timeouts;
      if (broken > 0)
        throw new BenchBroken(`team: routed round ${r + 1}: ${broken} requests failed or timed out`);
      // A callback the laptop did not answer by the hub's 750 ms deadline is answered by the hub
      // itself (route.late/route.down): not 200 for these unknown customers; counted, not hidden.
      fallbacks.push(routed.non2xx);
      d50.push(routed.latencyMs.p50 - direct.latencyMs.p50);
      d99.push(routed.latencyMs.p99 - direct.latencyMs.p99);
      hub99.push(own.latencyMs.p99);
      ctx.log(
        `team: routed round ${r + 1}: ${line('backend', direct)}; ${line('routed', routed)} (${routed.non2xx} answered by the hub); ${line('hub itself', own)}; load ${loadavg()[0]!.toFixed(2)}`,
      );
    }
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    return {
      figures: {
        routed_added_p50_ms: round2(median(d50)),
        routed_added_p99_ms: round2(median(d99)),
        hub_own_p99_ms: round2(median(hub99)),
        routed_answered_by_hub: `${fallbacks.join(', ')} of ${amount} per round (the laptop missed the 750 ms deadline)`,
        routed_load_average: load,
      },
      verdicts: [
        below('team.routed_p50', 'a routed /user_auth: added p50 over the backend’s own', median(d50), 5),
        below('team.routed_p99', 'a routed /user_auth: added p99 over the backend’s own', median(d99), 20),
      ],
      notes: [
        `routed /user_auth: ${amount} callbacks per target and round paced at ${rate}/s over ${CONNECTIONS} connections, median of ${rounds} interleaved rounds; load average ${load}`,
      ],
    };
  } finally {
    for (const c of children.reverse()) await c.stop().catch(() => undefined);
  }
}

function line(name: string, r: LoadResult): string {
  return `${name} p50 ${r.latencyMs.p50.toFixed(2)} p99 ${r.latencyMs.p99.toFixed(2)} ms`;
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/** `team add bench --role operator`: the member the laptop attaches as (its token printed once). */
async function addOperator(cli: string, data: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [cli, 'team', 'add', 'bench', '--role', 'operator', '--json', '--data-dir', data],
      { timeout: 30_000 },
      (err, stdout, stderr) =>
        err
          ? reject(new BenchBroken(`team add: ${err.message}\n${String(stderr).slice(-500)}`))
          : resolve((JSON.parse(String(stdout)) as { token: string }).token),
    ),
  );
}
