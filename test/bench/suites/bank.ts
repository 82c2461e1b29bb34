/**
 * Issues 5, 11 and 12: the bank's GET /user_auth (DESIGN.md "Bank endpoints"). Five targets, each in
 * its own child process pinned to one CPU (BENCH_PIN), loaded interleaved at the same
 * concurrency with the same X-Session-ID pool:
 *
 *   bank          the real bank endpoints: the core bundled from source (servers/bank.ts) with a
 *                 directory of BENCH_CUSTOMERS customers and CoreOptions.serviceJwksUrl pointing
 *                 at the bench's own JWKS server child (servers/jwks.ts)
 *   bank-norec    the same bank child with event recording off (BENCH_EVENT_RECORDING=off: the
 *                 core's store appends nothing, CoreOptions.eventStore): what recording costs
 *                 /user_auth, issue 12's "recording on ≥ 0.9× recording off"
 *   verify-floor  the node:crypto verifying floor (servers/verify-floor.ts): node:http, the token
 *                 split once, RS256 crypto.verify with a KeyObject cached per kid from the same
 *                 JWKS, the claim checks, the same spec 2.5 body; what a callback costs at least
 *   floor-turns   the same floor answering a turn at a time (BENCH_FLOOR_TURNS=1), as the
 *                 console's listeners do (core/http/listener.ts turnBatched): no target, printed
 *                 so that the bank's ratio to the plain floor is read with what the technique
 *                 alone is worth
 *   express       what a bank typically writes: express + jwks-rsa (cached) + jsonwebtoken with
 *                 the same checks (servers/express-bank.ts)
 *   http-floor    node:http answering a constant /user_auth JSON of the same size
 *
 * first a fixed-rate run at BENCH_RATE requests/s, evenly paced (lib/paced.ts), of the bank and
 * the floors. Every child reports its CPU time, so each round also gives the server's CPU µs
 * per request.
 */
import { join } from 'node:path';
import type { ChildServer } from '../lib/children';
import { makeSessionTokens, userBodyCheck, userDataOf, type SessionToken } from '../lib/customers';
import { BenchBroken } from '../lib/errors';
import type { LoadTarget } from '../lib/load';
import { runPaced } from '../lib/paced';
import { profilesOf } from '../lib/profiles';
import { runInterleaved, withCpu, type TargetRun } from '../lib/rounds';
import { snapshotThreads, threadSplits } from '../lib/thread-cpu';
import { signJwtSync } from '../lib/rs256';
import { isClean, summarizeTarget, type RoundStats } from '../lib/stats';
import {
  aliveCheck,
  atLeast,
  atMost,
  below,
  describeServers,
  finite,
  offServersCore,
  pinNote,
  pinCpu,
  reportChecks,
  requireCheck,
  roundPlan,
  roundsNote,
  runFigures,
  selectTargets,
  startServers,
  startServiceSide,
} from '../lib/steps';
import type { SpotCheck, Suite, SuiteResult } from '../lib/suite';
import { rotate } from '../lib/tokens';
import { tamper } from './sandbox';

const TARGETS = {
  bank: 'bank GET /user_auth',
  'bank-norec': 'bank GET /user_auth, event recording off',
  'verify-floor': 'crypto floor (node:http + node:crypto verify)',
  'floor-turns': 'crypto floor answering a turn at a time',
  express: 'express + jsonwebtoken + jwks-rsa',
  'http-floor': 'http floor (constant JSON)',
} as const;
type TargetId = keyof typeof TARGETS;
const ORDER: TargetId[] = ['bank', 'bank-norec', 'verify-floor', 'floor-turns', 'express', 'http-floor'];

const SUITE_ID = 'bank';
const SUITE_TITLE = 'Bank endpoints: GET /user_auth with X-Session-ID (issue 5)';

async function getUser(url: string, token: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/user_auth`, {
    headers: { 'x-session-id': token },
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text() };
}

/** Spot checks of one target: a valid token gets 200 with its customer's data; bad ones get 401. */
async function checkTarget(
  id: TargetId,
  url: string,
  good: SessionToken,
  expected: Record<string, string>,
  wrongSub: string,
): Promise<SpotCheck[]> {
  const checks: SpotCheck[] = [];
  const ok = await getUser(url, good.token);
  let body: Record<string, unknown> | null = null;
  try {
    body = JSON.parse(ok.text) as Record<string, unknown>;
  } catch {
    body = null;
  }
  const same =
    body !== null &&
    Object.entries(expected).every(([k, v]) =>
      k === 'first_name' || k === 'last_name' || k === 'email'
        ? body![k] === undefined || body![k] === v
        : body![k] === v,
    );
  if (id === 'http-floor') {
    checks.push({
      id: `${id}.answers`,
      ok: ok.status === 200 && body !== null,
      detail: `${ok.status}, constant JSON`,
    });
    return checks;
  }
  checks.push({
    id: `${id}.user_auth`,
    ok: ok.status === 200 && same,
    detail:
      ok.status === 200 && same
        ? `200 ${ok.text.slice(0, 160)}`
        : `expected 200 with customer ${good.claims.obj}'s data, got ${ok.status} ${ok.text.slice(0, 300)}`,
  });
  const bad = await getUser(url, tamper(good.token));
  checks.push({
    id: `${id}.rejects-tampered`,
    ok: bad.status === 401,
    detail: `${bad.status} for a tampered signature ${bad.text.slice(0, 160)}`,
  });
  const sub = await getUser(url, wrongSub);
  checks.push({
    id: `${id}.rejects-wrong-sub`,
    ok: sub.status === 401,
    detail: `${sub.status} for a sub that is not the customer's ${sub.text.slice(0, 160)}`,
  });
  return checks;
}

export const bankSuite: Suite = {
  id: SUITE_ID,
  title: SUITE_TITLE,
  async run(ctx): Promise<SuiteResult> {
    const cfg = ctx.config;
    const want = selectTargets(ctx, SUITE_ID, ORDER);

    // The service key (its public half in the JWKS child), the customers, the token pool.
    const { service, customers, usersFile, jwks, jwksUrl } = await startServiceSide(ctx, 'dets-bench-bank-');
    // Every server on one CPU (the load generator keeps the others): its figures are one core's.
    const cpu = pinCpu(cfg);
    const pin = cpu === null ? {} : { cpu };
    const [tokens, servers] = await Promise.all([
      makeSessionTokens(service, customers, cfg.tokens),
      startServers(want, async (id) => {
        const flags = ctx.nodeFlags(id);
        if (id === 'bank' || id === 'bank-norec') {
          const dataDir = await ctx.tmpDir('dets-bench-bank-data-');
          return {
            id,
            ...pin,
            args: [...flags, join(ctx.buildDir, 'servers/bank.mjs'), dataDir, usersFile],
            cwd: ctx.root,
            env: {
              DETS_DATA_DIR: dataDir,
              BENCH_SERVICE_JWKS_URL: jwksUrl,
              BENCH_EVENT_RECORDING: id === 'bank' ? 'on' : 'off',
            },
          };
        }
        if (id === 'express' || id === 'verify-floor' || id === 'floor-turns')
          return {
            id,
            ...pin,
            args: [
              ...flags,
              join(ctx.buildDir, `servers/${id === 'express' ? 'express-bank' : 'verify-floor'}.mjs`),
              usersFile,
            ],
            cwd: ctx.root,
            env: { BENCH_SERVICE_JWKS_URL: jwksUrl, BENCH_FLOOR_TURNS: id === 'floor-turns' ? '1' : '0' },
          };
        return {
          id,
          ...pin,
          args: [...flags, join(ctx.buildDir, 'servers/http-floor.mjs')],
          env: { BENCH_HTTP_FLOOR_BODY: JSON.stringify(userDataOf(customers[0]!)) },
        };
      }),
    ]);
    ctx.log(
      `  ${customers.length} customers, ${tokens.length} distinct X-Session-ID tokens; servers: ${describeServers([jwks, ...servers.values()])}; ${cpu === null ? 'not pinned' : `pinned to CPU ${cpu}`}`,
    );

    const first = tokens[0]!;
    const now = Math.floor(Date.now() / 1000);
    const wrongSub = signJwtSync(
      { alg: 'RS256', typ: 'JWT', kid: service.kid },
      { flow: 'sign-in', obj: first.claims.obj, sub: 'someone-else@bank.example', iat: now, exp: now + 600 },
      service.privateKey,
    );
    const checks: SpotCheck[] = [];
    for (const id of want)
      checks.push(
        ...(await checkTarget(
          id,
          servers.get(id)!.url,
          first,
          userDataOf(customers[first.customer]!),
          wrongSub,
        )),
      );
    reportChecks(ctx, checks);
    const jwksBefore = await jwksFetches(jwks);

    const check = userBodyCheck(customers);
    const targets: LoadTarget[] = want.map((id, i) => {
      const next = rotate(tokens, i * 7);
      return {
        id,
        title: TARGETS[id],
        url: servers.get(id)!.url,
        nextRequest: () => ({ method: 'GET', path: '/user_auth', headers: { 'X-Session-ID': next().token } }),
        ...(id === 'http-floor' ? {} : { verifyBody: check }),
      };
    });
    const alive = aliveCheck(servers);
    // The fixed-rate runs at BENCH_RATE requests/s, evenly paced: the bank (the target) and the
    // http floor (what the same paced load costs where there is no work: the machine's and the
    // generator's share), interleaved over BENCH_RATE_ROUNDS rounds; the figure is the median of
    // the rounds' p99, like the 32-connection p99, so one round disturbed by the shared machine
    // does not decide it (the pooled p99 is printed beside it). They run before the saturation
    // rounds, after a paced warm-up: they measure the bank at a steady 2,000 req/s, not in the
    // seconds after a saturation it is still collecting the garbage of (docs/benchmarks.md).
    const rateIds = (['bank', 'verify-floor', 'http-floor'] as const).filter((id) =>
      targets.some((x) => x.id === id),
    );
    const cpuOf = (id: string) => () => servers.get(id as TargetId)?.cpuMicros() ?? Promise.resolve(null);
    const rateStats = new Map<string, { rounds: RoundStats[]; latencies: number[] }>(
      rateIds.map((id) => [id, { rounds: [], latencies: [] }]),
    );
    const amount = Math.max(cfg.connections, Math.round(cfg.rate * cfg.rateSeconds));
    // The load generator (this process) stays off the servers' core while it loads them.
    await offServersCore(cpu, async () => {
      for (const id of rateIds) {
        alive(id);
        const t = targets.find((x) => x.id === id)!;
        const w = await runPaced(
          { ...t, id: `${id}-fixed-rate-warmup` },
          {
            connections: cfg.connections,
            amount: Math.round(cfg.rate * cfg.warmupSeconds),
            maxSeconds: cfg.warmupSeconds * 2 + 2,
            rate: cfg.rate,
          },
        );
        if (!isClean(w))
          throw new BenchBroken(`${id} fixed-rate warm-up: ${w.non2xx} non-2xx, ${w.errors} errors`);
      }
      for (let round = 1; round <= cfg.rateRounds; round++) {
        for (const id of rateIds) {
          const t = targets.find((x) => x.id === id)!;
          alive(id);
          const r = await withCpu(cpuOf(id), () =>
            runPaced(
              { ...t, id: `${id}-fixed-rate` },
              { connections: cfg.connections, amount, maxSeconds: cfg.rateSeconds * 2 + 2, rate: cfg.rate },
            ),
          );
          if (!isClean(r))
            throw new BenchBroken(
              `${id} fixed-rate run: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.mismatches} bad bodies of ${r.responses} [${JSON.stringify(r.statusCodes)}]`,
            );
          const { latencies, statusCodes: _s, ...stats } = r;
          const acc = rateStats.get(id)!;
          acc.rounds.push(stats);
          for (const l of latencies) acc.latencies.push(l);
          ctx.log(
            `  fixed rate ${round}/${cfg.rateRounds}, ${id}: ${r.responses} req in ${(r.elapsedMs / 1000).toFixed(1)} s, p50 ${r.latencyMs.p50.toFixed(2)} ms, p99 ${r.latencyMs.p99.toFixed(2)} ms`,
          );
        }
      }
    });
    const threadsBefore = snapshotThreads(servers, ['bank', 'bank-norec']);
    const runs = await offServersCore(cpu, () =>
      runInterleaved(targets, roundPlan(cfg), {
        log: ctx.log,
        beforeRun: (t) => alive(t.id),
        cpuMicros: (t) => cpuOf(t.id)(),
      }),
    );
    const rateRuns: TargetRun[] = rateIds.map((id) => {
      const acc = rateStats.get(id)!;
      return {
        id: `${id}-fixed-rate`,
        title: `${id === 'bank' ? 'bank /user_auth' : id === 'verify-floor' ? 'crypto floor' : 'http floor'} at ${cfg.rate} req/s`,
        warmup: acc.rounds[0]!,
        amount,
        rounds: acc.rounds,
        summary: summarizeTarget(acc.rounds, acc.latencies),
      };
    });
    // Where the bank's CPU went: its event loop, the store's writer thread, the rest.
    const threadNotes = threadSplits(servers, threadsBefore, runs);
    for (const line of threadNotes) ctx.log(`  ${line}`);

    const rateRun = rateRuns.find((r) => r.id === 'bank-fixed-rate') ?? null;
    const floorRateRun = rateRuns.find((r) => r.id === 'verify-floor-fixed-rate') ?? null;
    const jwksAfter = await jwksFetches(jwks);

    // Still correct after the load.
    const bank = servers.get('bank');
    if (bank) {
      const again = await getUser(bank.url, tokens[tokens.length - 1]!.token);
      const ok = again.status === 200 && check(again.text);
      requireCheck(
        checks,
        { id: 'bank.after-load', ok, detail: `${again.status} ${again.text.slice(0, 120)}` },
        'bank after the load',
      );
    }

    await Promise.all([...servers.values(), jwks].map((s) => s.stop()));
    const profiles = profilesOf(ctx, want, (id) =>
      id === 'express'
        ? 'express-bank'
        : id === 'bank-norec'
          ? 'bank'
          : id === 'floor-turns'
            ? 'verify-floor'
            : id,
    );

    const { by, ratio, paired } = runFigures<TargetId>(runs);
    const cpuOfRun = (id: TargetId) => finite(by.get(id)?.cpuPerRequestUs);
    const bankCpu = cpuOfRun('bank');
    const floorCpu = cpuOfRun('verify-floor');
    const ratios = {
      bank_vs_crypto_floor: ratio('bank', 'verify-floor'),
      bank_cpu_vs_crypto_floor:
        bankCpu !== null && floorCpu !== null && floorCpu > 0 ? bankCpu / floorCpu : null,
      bank_vs_http_floor: ratio('bank', 'http-floor'),
      bank_vs_express: ratio('bank', 'express'),
      express_vs_http_floor: ratio('express', 'http-floor'),
      bank_vs_express_paired: paired('bank', 'express'),
      recording_on_vs_off: ratio('bank', 'bank-norec'),
      recording_on_vs_off_paired: paired('bank', 'bank-norec'),
      bank_vs_crypto_floor_paired: paired('bank', 'verify-floor'),
      bank_vs_crypto_floor_in_turns: ratio('bank', 'floor-turns'),
      crypto_floor_in_turns_vs_plain: ratio('floor-turns', 'verify-floor'),
      bank_vs_http_floor_paired: paired('bank', 'http-floor'),
    };
    const verdicts = [
      atLeast(
        'bank_throughput_vs_crypto_floor',
        'bank /user_auth throughput ÷ node:crypto verifying floor',
        ratios.bank_vs_crypto_floor,
        0.75,
      ),
      atMost(
        'bank_cpu_vs_crypto_floor',
        `bank /user_auth server CPU per request ÷ the floor's (${fmtUs(bankCpu)} ÷ ${fmtUs(floorCpu)})`,
        ratios.bank_cpu_vs_crypto_floor,
        1.5,
      ),
      atLeast(
        'bank_throughput_vs_http_floor',
        'bank /user_auth throughput ÷ http floor',
        ratios.bank_vs_http_floor,
        0.15,
      ),
      atLeast(
        'bank_throughput_vs_express',
        'bank /user_auth throughput ÷ express + jsonwebtoken + jwks-rsa',
        ratios.bank_vs_express,
        4,
      ),
      atLeast(
        'bank_recording_on_vs_off',
        '/user_auth throughput with event recording on ÷ recording off',
        ratios.recording_on_vs_off,
        0.9,
      ),
      below(
        'bank_p99',
        'bank /user_auth p99 latency at 32 connections (median of rounds)',
        finite(by.get('bank')?.roundP99Ms),
        10,
      ),
      atMost(
        'bank_fixed_rate_p99',
        `bank /user_auth p99 latency at ${cfg.rate} req/s (median of rounds)`,
        finite(rateRun?.summary.roundP99Ms),
        2,
        'ms',
      ),
      below(
        'crypto_floor_fixed_rate_p99',
        `crypto floor p99 latency at ${cfg.rate} req/s (median of rounds; the machine can show a 2 ms bank only below this)`,
        finite(floorRateRun?.summary.roundP99Ms),
        1,
      ),
    ];
    const fetchedDuringLoad = jwksAfter !== null && jwksBefore !== null ? jwksAfter - jwksBefore : null;
    const turnsCpu = cpuOfRun('floor-turns');
    const notes = [
      ...threadNotes,
      `no target: the crypto floor answering a turn at a time (as the console's listeners do) served ${fmtRatio(ratios.crypto_floor_in_turns_vs_plain)} the plain floor's throughput at ${fmtUs(turnsCpu)} per request; the bank served ${fmtRatio(ratios.bank_vs_crypto_floor_in_turns)} of it.`,
      `${roundsNote(cfg)}; ${cfg.rateRounds} interleaved fixed-rate rounds of ${cfg.rateSeconds} s at ${cfg.rate} req/s (evenly paced, one request every 1/rate s, latency counted from the moment each is due).`,
      `${tokens.length} distinct RS256 X-Session-ID tokens (kid ${service.kid}) over ${customers.length} customers; every answer checked to be one customer's user data.`,
      `service JWKS fetched ${jwksAfter ?? '?'} times in all, ${fetchedDuringLoad ?? '?'} during the load (cached).`,
      `${pinNote(cpu)}; CPU per request is each server child's process.cpuUsage() (user + system, every thread) over a round and until the child has settled (deferred event writes, the store's idle full-text indexing and checkpoints included; the next round starts on a quiet core) ÷ its responses, median of rounds.`,
    ];
    return {
      id: SUITE_ID,
      title: SUITE_TITLE,
      targets: [...runs, ...rateRuns],
      ratios,
      verdicts,
      checks,
      notes,
      profiles,
      figures: { jwks_fetches_total: jwksAfter, jwks_fetches_during_load: fetchedDuringLoad },
    };
  },
};

const fmtUs = (us: number | null) => (us === null ? 'n/a' : `${us.toFixed(1)} µs`);
const fmtRatio = (r: number | null) => (r === null ? 'n/a' : `${r.toFixed(2)}×`);

async function jwksFetches(jwks: ChildServer): Promise<number | null> {
  try {
    const res = await fetch(`${jwks.url}/stats`, { signal: AbortSignal.timeout(5_000) });
    const v = (await res.json()) as { requests?: unknown };
    return typeof v.requests === 'number' ? v.requests : null;
  } catch {
    return null;
  }
}
