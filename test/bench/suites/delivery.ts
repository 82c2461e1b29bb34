/**
 * Issue 27 "Performance": the sandbox keeps 1,000 notification deliveries in flight, each on the
 * service's ladder against a receiver that refuses the first attempt (500) and accepts the next,
 * while the bank's GET /user_auth is loaded in the same process (one console core serving the
 * bank endpoints and the sandbox, as `serve` does: servers/bank.ts with the sandbox on, at
 * `--time-scale 1`). Targets and figures:
 *
 *   /user_auth under deliveries ÷ the node:crypto verifying floor ≥ 0.75× (as the bank suite
 *   measures it: 32 connections, median round throughput; the floor's rounds run before and
 *   after the sample, on the same pinned CPU, with nothing else running)
 *   the peak number in flight ≥ BENCH_DELIVERY_IN_FLIGHT (1,000), counted by the receiver
 *   the scheduler's timing error (an attempt's start minus its planned time) p50/p99/max over a
 *   BENCH_DELIVERY_SECONDS (60 s) sample, read back from the deliveries (no target: printed)
 *
 * Bounded in count and time, 127.0.0.1 only, every child stopped by its PID (lib/children.ts).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { makeSessionTokens, userBodyCheck } from '../lib/customers';
import { keepInFlight, readTiming, requestJson, type DriveResult } from '../lib/delivery-driver';
import { BenchBroken } from '../lib/errors';
import { runLoad, type LoadTarget } from '../lib/load';
import { profilesOf } from '../lib/profiles';
import { runInterleaved, type TargetRun } from '../lib/rounds';
import { makeRsaKey } from '../lib/rs256';
import { isClean, median, percentile, summarizeTarget, type RoundStats } from '../lib/stats';
import {
  atLeast,
  describeServers,
  offServersCore,
  pinCpu,
  pinNote,
  reportChecks,
  roundPlan,
  startServers,
  startServiceSide,
} from '../lib/steps';
import type { SpotCheck, Suite, SuiteContext, SuiteResult } from '../lib/suite';
import { rotate } from '../lib/tokens';

const SUITE_ID = 'delivery';
const SUITE_TITLE = 'Sandbox deliveries: 1,000 on the ladder, /user_auth beside them (issue 27)';
/**
 * notify requests the driver keeps open at once: each is answered after its delivery's row, its
 * first attempt and its trace are committed, so the rate it reaches is this ÷ that latency.
 */
const DRIVER_CONNECTIONS = 128;

type ServerId = 'bank' | 'verify-floor' | 'receiver';

/** The bank's /user_auth rounds run back to back while `driving()`; those that ended in it count. */
async function roundsWhile(
  target: LoadTarget,
  amount: number,
  maxSeconds: number,
  connections: number,
  driving: () => boolean,
): Promise<RoundStats[]> {
  const rounds: RoundStats[] = [];
  while (driving()) {
    const r = await runLoad(target, { connections, amount, maxSeconds });
    if (!isClean(r))
      throw new BenchBroken(
        `bank /user_auth under deliveries: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.mismatches} bad bodies`,
      );
    if (driving()) {
      const { latencies: _l, statusCodes: _s, ...stats } = r;
      rounds.push(stats);
    }
  }
  return rounds;
}

async function onboard(sandboxUrl: string, receiverUrl: string): Promise<string> {
  const key = await makeRsaKey(`bench-${randomUUID().slice(0, 8)}`);
  const r = await requestJson(undefined, `${sandboxUrl}/sandbox/v1/counterparties`, 'POST', {
    jwk: key.jwk,
    bank_receiver_url: receiverUrl,
  });
  if (r.status !== 201)
    throw new BenchBroken(`onboarding in the sandbox: ${r.status} ${r.text.slice(0, 300)}`);
  return (JSON.parse(r.text) as { counterparty_guid: string }).counterparty_guid;
}

async function startAll(ctx: SuiteContext) {
  const cfg = ctx.config;
  const { service, customers, usersFile, jwks, jwksUrl } = await startServiceSide(
    ctx,
    'dets-bench-delivery-',
  );
  const cpu = pinCpu(cfg);
  const pin = cpu === null ? {} : { cpu };
  const servers = await startServers<ServerId>(['bank', 'verify-floor', 'receiver'], async (id) => {
    if (id === 'receiver') return { id, args: [join(ctx.buildDir, 'servers/ladder-receiver.mjs')] };
    if (id === 'verify-floor')
      return {
        id,
        ...pin,
        args: [...ctx.nodeFlags(id), join(ctx.buildDir, 'servers/verify-floor.mjs'), usersFile],
        env: { BENCH_SERVICE_JWKS_URL: jwksUrl, BENCH_FLOOR_TURNS: '0' },
      };
    const dataDir = await ctx.tmpDir('dets-bench-delivery-data-');
    return {
      id,
      ...pin,
      args: [...ctx.nodeFlags(id), join(ctx.buildDir, 'servers/bank.mjs'), dataDir, usersFile],
      cwd: ctx.root,
      env: {
        DETS_DATA_DIR: dataDir,
        BENCH_SERVICE_JWKS_URL: jwksUrl,
        BENCH_EVENT_RECORDING: 'on',
        BENCH_SANDBOX_TIME_SCALE: '1',
      },
    };
  });
  const tokens = await makeSessionTokens(service, customers, cfg.tokens);
  ctx.log(`  servers: ${describeServers([jwks, ...servers.values()])}; ${pinNote(cpu)}`);
  const check = userBodyCheck(customers);
  const target = (id: 'bank' | 'verify-floor', title: string, offset: number): LoadTarget => {
    const next = rotate(tokens, offset);
    return {
      id,
      title,
      url: servers.get(id)!.url,
      nextRequest: () => ({ method: 'GET', path: '/user_auth', headers: { 'X-Session-ID': next().token } }),
      verifyBody: check,
    };
  };
  return {
    cpu,
    all: [jwks, ...servers.values()],
    sandboxUrl: String(servers.get('bank')!.ready.sandbox),
    receiverUrl: servers.get('receiver')!.url,
    bank: target('bank', 'bank /user_auth (quiet)', 0),
    floor: target('verify-floor', 'crypto floor (node:http + node:crypto verify)', 7),
  };
}

function figuresOf(drive: DriveResult, timing: Awaited<ReturnType<typeof readTiming>>) {
  const e = timing.errorsMs;
  const at = (p: number) => (e.length ? percentile(e, p) : null);
  return {
    delivery_peak_in_flight: drive.peak,
    delivery_kept_in_flight_p5: drive.keptP5,
    delivery_kept_in_flight_median: drive.keptMedian,
    delivery_ramp_seconds: drive.rampSeconds,
    delivery_starts_per_second: Math.round(drive.startsPerSecond),
    delivery_started: drive.ids.length,
    delivery_read_back: timing.read,
    delivery_read_back_delivered: timing.delivered,
    scheduler_error_ms_p50: at(50),
    scheduler_error_ms_p99: at(99),
    scheduler_error_ms_max: e.length ? e[e.length - 1]! : null,
  };
}

export const deliverySuite: Suite = {
  id: SUITE_ID,
  title: SUITE_TITLE,
  async run(ctx): Promise<SuiteResult> {
    const cfg = ctx.config;
    const s = await startAll(ctx);
    const checks: SpotCheck[] = [];
    const guid = await onboard(s.sandboxUrl, s.receiverUrl);
    const one = await requestJson(
      undefined,
      `${s.sandboxUrl}/sandbox/v1/counterparties/${guid}/notify`,
      'POST',
      {
        event: 'pay-in',
      },
    );
    const oneAnswer = JSON.parse(one.text) as { status?: number };
    checks.push({
      id: 'delivery.first-refused',
      ok: one.status === 200 && oneAnswer.status === 500,
      detail: `${one.status} ${one.text.slice(0, 160)}`,
    });
    reportChecks(ctx, checks);

    // Quiet: the floor and the bank, interleaved (warm-up calibrates the bank's round size).
    const quiet = await offServersCore(s.cpu, () =>
      runInterleaved([s.floor, s.bank], roundPlan(cfg), { log: ctx.log }),
    );
    const bankAmount = quiet.find((r) => r.id === 'bank')!.amount;
    // The sample: deliveries kept in flight, /user_auth loaded the whole time.
    let driving = true;
    const maxSeconds = cfg.roundSeconds * cfg.capFactor + 2;
    const [drive, underLoad] = await offServersCore(s.cpu, () =>
      Promise.all([
        keepInFlight({
          sandboxUrl: s.sandboxUrl,
          receiverUrl: s.receiverUrl,
          guid,
          inFlight: cfg.deliveryInFlight,
          seconds: cfg.deliverySeconds,
          concurrency: DRIVER_CONNECTIONS,
          maxStarts: Math.round(cfg.deliveryInFlight * 3 * cfg.deliverySeconds),
          log: ctx.log,
        }).finally(() => (driving = false)),
        roundsWhile(
          { ...s.bank, id: 'bank-under-deliveries' },
          bankAmount,
          maxSeconds,
          cfg.connections,
          () => driving,
        ),
      ]),
    );
    if (drive.badAnswers > 0)
      throw new BenchBroken(
        `${drive.badAnswers} notify answers were not 200 with a refused first attempt; last: ${drive.lastBad}`,
      );
    // The floor again, after the sample (the machine may have drifted).
    const after = await offServersCore(s.cpu, () =>
      runInterleaved([{ ...s.floor, id: 'verify-floor-after' }], roundPlan(cfg), { log: ctx.log }),
    );
    const timing = await readTiming(s.sandboxUrl, drive.ids, cfg.deliveryRead);
    checks.push({
      id: 'delivery.read-back',
      ok: timing.offLadder === 0 && timing.delivered === timing.read,
      detail: `${timing.delivered} of ${timing.read} read back delivered, ${timing.offLadder} not exactly [500, 200]${timing.example ? ` (e.g. ${timing.example})` : ''}`,
    });
    reportChecks(ctx, checks);
    await Promise.all(s.all.map((c) => c.stop()));

    const floorRounds = [...quiet.find((r) => r.id === 'verify-floor')!.rounds, ...after[0]!.rounds];
    const floorRps = median(floorRounds.map((r) => r.rps));
    const loadRps = median(underLoad.map((r) => r.rps));
    const quietRps = quiet.find((r) => r.id === 'bank')!.summary.rps;
    const loadRun: TargetRun = {
      id: 'bank-under-deliveries',
      title: `bank /user_auth with ${cfg.deliveryInFlight} deliveries in flight`,
      warmup: underLoad[0] ?? quiet[1]!.warmup,
      amount: bankAmount,
      rounds: underLoad,
      summary: summarizeTarget(underLoad, []),
    };
    const ratios = {
      bank_under_deliveries_vs_crypto_floor: underLoad.length && floorRps > 0 ? loadRps / floorRps : null,
      bank_quiet_vs_crypto_floor: floorRps > 0 ? quietRps / floorRps : null,
      bank_under_deliveries_vs_quiet: underLoad.length && quietRps > 0 ? loadRps / quietRps : null,
    };
    const figures = figuresOf(drive, timing);
    return {
      id: SUITE_ID,
      title: SUITE_TITLE,
      targets: [...quiet, loadRun, ...after],
      ratios,
      verdicts: [
        atLeast(
          'delivery.user_auth_vs_crypto_floor',
          `bank /user_auth with deliveries in flight ÷ node:crypto verifying floor`,
          ratios.bank_under_deliveries_vs_crypto_floor,
          0.75,
        ),
        atLeast(
          'delivery.peak_in_flight',
          `deliveries in flight at the peak ÷ ${cfg.deliveryInFlight}`,
          drive.peak / cfg.deliveryInFlight,
          1,
        ),
      ],
      checks,
      notes: [
        `${cfg.deliverySeconds} s sample at --time-scale 1: a closed loop of ${DRIVER_CONNECTIONS} notify requests keeps ${cfg.deliveryInFlight} deliveries on the ladder (receiver: 500 to the first attempt, 200 after, so each waits the ladder's first 1 s step); in flight = refused − accepted at the receiver.`,
        `/user_auth: ${cfg.connections} connections, rounds of ~${cfg.roundSeconds} s back to back during the sample (${underLoad.length} counted); the floor's ${floorRounds.length} rounds run before and after it, quiet.`,
        `timing error: the start of every attempt after the first minus its planned time, over ${timing.read} deliveries read back evenly from the ${drive.ids.length} started.`,
        pinNote(s.cpu),
      ],
      profiles: profilesOf(ctx, ['bank', 'verify-floor']),
      figures,
    };
  },
};
