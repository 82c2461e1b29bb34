/**
 * The bench harness's own tests: the pure rules (percentiles, summaries, ratios, targets,
 * settings, token claims, profile attribution) and one tiny real run against a bare server child
 * on 127.0.0.1, bounded by count. Counts only: speed is the bench's business, never a test's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { killAllSync, parseCpu, parseReady, startChild } from './lib/children';
import { ConfigError, readConfig } from './lib/config';
import { BenchBroken } from './lib/errors';
import { runLoad, type LoadTarget } from './lib/load';
import { runPaced } from './lib/paced';
import { bundleMarkers, summarizeProfile, type CpuProfile } from './lib/profile';
import { formatTable, formatVerdict } from './lib/report';
import { runInterleaved } from './lib/rounds';
import { bankClaimsOk, makeRsaKey, signJwtSync, verifyJwtSync } from './lib/rs256';
import {
  amountFor,
  judge,
  median,
  pairedRatio,
  percentile,
  ratio,
  summarizeLatencies,
  summarizeTarget,
  type RoundStats,
} from './lib/stats';
import { keepOffCpu, offServersCore, pinNote } from './lib/steps';
import { poolClaims, rotate } from './lib/tokens';
import { sessionBodyCheck, tamper } from './suites/sandbox';

describe('percentile and median', () => {
  it('uses the nearest rank', () => {
    expect(percentile([4, 1, 3, 2], 50)).toBe(2);
    expect(percentile([4, 1, 3, 2], 0)).toBe(1);
    expect(percentile([4, 1, 3, 2], 100)).toBe(4);
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 99.9)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
  });

  it('is NaN for no values and refuses a percentile outside 0..100', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });

  it('takes the middle, or the mean of the two middles', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([10, 1, 2, 4])).toBe(3);
    expect(median([])).toBeNaN();
  });

  it('summarizes latencies', () => {
    const s = summarizeLatencies([5, 1, 2, 3, 4]);
    expect(s).toEqual({ count: 5, min: 1, mean: 3, p50: 3, p90: 5, p99: 5, max: 5 });
    expect(summarizeLatencies([]).count).toBe(0);
  });
});

function round(rps: number, over: Partial<RoundStats> = {}): RoundStats {
  return {
    responses: 100,
    ok2xx: 100,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    mismatches: 0,
    elapsedMs: 1000,
    rps,
    capped: false,
    latencyMs: summarizeLatencies([1]),
    ...over,
  };
}

describe('target summary, ratios and verdicts', () => {
  it('takes the median throughput over rounds and pools latencies', () => {
    const s = summarizeTarget(
      [round(900), round(1100, { capped: true }), round(1000), round(5000)],
      [1, 2, 3, 4, 100],
    );
    expect(s.rps).toBe(1050);
    expect(s.rpsMin).toBe(900);
    expect(s.rpsMax).toBe(5000);
    expect(s.responses).toBe(400);
    expect(s.cappedRounds).toBe(1);
    expect(s.latencyMs.p50).toBe(3);
    expect(s.latencyMs.p99).toBe(100);
  });

  it("takes the median of each round's p99, so one disturbed round does not decide", () => {
    const lat = (p99: number) => ({ ...summarizeLatencies([1]), p50: 1, p99 });
    const s = summarizeTarget(
      [round(1, { latencyMs: lat(10) }), round(1, { latencyMs: lat(400) }), round(1, { latencyMs: lat(12) })],
      [1],
    );
    expect(s.roundP99Ms).toBe(12);
    expect(s.roundP50Ms).toBe(1);
  });

  it('pairs rounds for a round-by-round ratio', () => {
    expect(
      pairedRatio([round(800), round(900), round(3000)], [round(1000), round(1000), round(1000)]),
    ).toBeCloseTo(0.9);
    expect(pairedRatio([round(800)], [])).toBeNull();
  });

  it('divides only positive finite figures', () => {
    expect(ratio(700, 1000)).toBeCloseTo(0.7);
    expect(ratio(700, 0)).toBeNull();
    expect(ratio(Number.NaN, 1000)).toBeNull();
    expect(ratio(700, Number.POSITIVE_INFINITY)).toBeNull();
  });

  it('passes ≥ at the threshold, < strictly, and misses what was not measured', () => {
    const tput = { id: 't', title: 'throughput ratio', op: '>=' as const, threshold: 0.7, unit: '×' };
    expect(judge({ ...tput, value: 0.7 }).pass).toBe(true);
    expect(judge({ ...tput, value: 0.69 }).pass).toBe(false);
    expect(judge({ ...tput, value: null }).pass).toBe(false);
    const p99 = { id: 'p', title: 'p99', op: '<' as const, threshold: 50, unit: 'ms' };
    expect(judge({ ...p99, value: 49.9 }).pass).toBe(true);
    expect(judge({ ...p99, value: 50 }).pass).toBe(false);
    expect(judge({ ...p99, value: Number.NaN }).pass).toBe(false);
    expect(formatVerdict(judge({ ...p99, value: 61.25 }))).toBe('MISSED  p99: 61.3 ms (target < 50 ms)');
    expect(formatVerdict(judge({ ...tput, value: 0.9 }))).toBe(
      'PASS    throughput ratio: 0.90× (target >= 0.7×)',
    );
    const cpu = { id: 'c', title: 'cpu ratio', op: '<=' as const, threshold: 1.5, unit: '×' };
    expect(judge({ ...cpu, value: 1.5 }).pass).toBe(true);
    expect(judge({ ...cpu, value: 1.51 }).pass).toBe(false);
    expect(judge({ ...cpu, value: null }).pass).toBe(false);
  });

  it("reads a child's CPU line and the median CPU per request over rounds", () => {
    expect(parseCpu('{"cpu":{"user":1200,"system":300}}')).toBe(1500);
    expect(parseCpu('{"ready":true}')).toBeNull();
    expect(parseCpu('{"cpu":{"user":"x"}}')).toBeNull();
    const cpuRound = (cpuPerRequestUs: number) => round(1000, { cpuPerRequestUs });
    expect(summarizeTarget([cpuRound(40), cpuRound(60), cpuRound(50)], []).cpuPerRequestUs).toBe(50);
    expect(summarizeTarget([round(1000)], []).cpuPerRequestUs).toBeNaN();
  });

  it('sizes a round from the warm-up throughput, within bounds', () => {
    const limits = { min: 128, max: 50_000, connections: 32 };
    expect(amountFor(1000, 2.5, limits)).toBe(2500);
    expect(amountFor(10, 2.5, limits)).toBe(128);
    expect(amountFor(1e9, 2.5, limits)).toBe(50_000);
    expect(amountFor(Number.NaN, 2.5, limits)).toBe(128);
    expect(amountFor(1, 1, { min: 1, max: 10, connections: 32 })).toBe(32);
  });

  it('formats a table with aligned columns', () => {
    expect(formatTable(['a', 'bb'], [['xyz', '1']]).split('\n')).toEqual(['a    bb', '---  --', 'xyz   1']);
  });
});

describe('settings', () => {
  it('defaults to 32 connections and a 2,000-token pool, and scales', () => {
    const d = readConfig({});
    expect(d).toMatchObject({
      connections: 32,
      rounds: 5,
      tokens: 2000,
      roundSeconds: 2.5,
      sandboxVia: 'bundle',
      suites: null,
      targets: null,
    });
    const s = readConfig({
      BENCH_SCALE: '0.2',
      BENCH_TARGETS: 'http-floor, crypto-floor',
      BENCH_PROFILE: 'sandbox',
    });
    expect(s.tokens).toBe(400);
    expect(s.roundSeconds).toBeCloseTo(0.5);
    expect(s.targets).toEqual(['http-floor', 'crypto-floor']);
    expect(s.profile).toEqual(['sandbox']);
  });

  it('names the variable that is wrong', () => {
    expect(() => readConfig({ BENCH_CONNECTIONS: '2.5' })).toThrow(/BENCH_CONNECTIONS must be an integer/);
    expect(() => readConfig({ BENCH_PIN: 'last' })).toThrow(/BENCH_PIN must be auto, off or a CPU number/);
    expect(readConfig({}).pin).toBe('auto');
    expect(readConfig({ BENCH_PIN: '1' }).pin).toBe(1);
    expect(() => readConfig({ BENCH_SCALE: 'fast' })).toThrow(ConfigError);
    expect(() => readConfig({ BENCH_SANDBOX: 'docker' })).toThrow(/BENCH_SANDBOX/);
  });
});

describe('bank tokens and session bodies', () => {
  it('gives every pool token distinct claims the sandbox accepts (lifetime ≤ 1 h)', () => {
    const now = 1_800_000_000;
    const claims = Array.from({ length: 2000 }, (_, i) => poolClaims(i, now));
    expect(new Set(claims.map((c) => `${c.obj}|${c.sub}`)).size).toBe(2000);
    expect(new Set(claims.map((c) => c.sub)).size).toBe(2000);
    for (const c of claims) {
      expect(c.exp - c.iat).toBeLessThanOrEqual(3600);
      expect(c.iat).toBeLessThanOrEqual(now);
      expect(c.exp).toBeGreaterThan(now + 25 * 60);
      expect(bankClaimsOk(c, now)).toBe(true);
    }
    expect(bankClaimsOk({ ...claims[0]!, flow: 'sign-up' }, now)).toBe(false);
    expect(bankClaimsOk({ ...claims[0]!, exp: claims[0]!.iat + 3601 }, now)).toBe(false);
  });

  it('rotates round-robin', () => {
    const next = rotate(['a', 'b', 'c'], 4);
    expect([next(), next(), next(), next()]).toEqual(['b', 'c', 'a', 'b']);
  });

  it('verifies RS256 and refuses a tampered signature; the body check samples signatures', async () => {
    const key = await makeRsaKey('k1');
    const token = signJwtSync({ alg: 'RS256', kid: 'k1' }, poolClaims(0, 1_800_000_000), key.privateKey);
    expect(verifyJwtSync(token, key.publicKey)?.payload.flow).toBe('sign-in');
    expect(verifyJwtSync(tamper(token), key.publicKey)).toBeNull();
    expect(verifyJwtSync(token, () => undefined)).toBeNull();
    expect(verifyJwtSync('not.a-token', key.publicKey)).toBeNull();

    const every2 = sessionBodyCheck(() => key.publicKey, 2);
    const bad = JSON.stringify({ session_token: tamper(token) });
    expect(every2(bad)).toBe(true); // 1st: shape only
    expect(every2(bad)).toBe(false); // 2nd: signature checked
    expect(every2('{"session_token":1}')).toBe(false);
    expect(every2('<html>')).toBe(false);
  });
});

describe('profile attribution', () => {
  it('charges self time to bundle sources, npm packages, node internals and idle', () => {
    const bundleUrl = 'file:///x/dist/bench/servers/sandbox.mjs';
    const bundle = [
      '// node_modules/foo.js',
      'a',
      '// electron/core/sandbox/engine.ts',
      'function authenticate() {}',
      'b',
    ].join('\n');
    expect(bundleMarkers(bundle)).toEqual([
      [0, 'node_modules/foo.js'],
      [2, 'electron/core/sandbox/engine.ts'],
    ]);
    const frame = (functionName: string, url = '', lineNumber = 0) => ({
      functionName,
      url,
      lineNumber,
      columnNumber: 0,
    });
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 4] },
        { id: 2, callFrame: frame('authenticate', bundleUrl, 3), children: [3] },
        {
          id: 3,
          callFrame: frame(
            'compactVerify',
            'file:///x/node_modules/jose/dist/webapi/jws/compact/verify.js',
            9,
          ),
        },
        { id: 4, callFrame: frame('(idle)') },
      ],
      startTime: 0,
      endTime: 100,
      // timeDeltas[i] is charged to samples[i-1]
      samples: [2, 3, 3, 4, 4],
      timeDeltas: [0, 10_000, 20_000, 30_000, 40_000],
    };
    const s = summarizeProfile(profile, { bundleFiles: new Map([[bundleUrl, bundle]]) });
    expect(s.totalMs).toBe(100);
    expect(s.busyMs).toBe(60);
    expect(Object.fromEntries(s.areas.map((a) => [a.name, a.selfMs]))).toEqual({
      'electron/core/sandbox/engine.ts': 10,
      'npm jose': 50,
      '(idle)': 40,
    });
    const auth = s.inclusive.find((l) => l.name.startsWith('authenticate'));
    expect(auth?.totalMs).toBe(60);
  });
});

describe('a tiny real run on 127.0.0.1', () => {
  afterAll(() => killAllSync());

  // A bare node:http child speaking the ready-line protocol; x-fail: 1 gets a 401.
  const bare = `
    const http = require('node:http');
    const s = http.createServer((req, res) => {
      req.resume();
      res.writeHead(req.headers['x-fail'] ? 401 : 200, { 'content-type': 'application/json' });
      res.end('{"session_token":"a.b.c"}');
    });
    s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ ready: true, url: 'http://127.0.0.1:' + s.address().port })));
    process.on('SIGTERM', () => process.exit(0));
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();
  `;

  it('reads only a JSON ready line', () => {
    expect(parseReady('{"ready":true,"url":"http://127.0.0.1:1"}')).toEqual({
      ready: true,
      url: 'http://127.0.0.1:1',
    });
    expect(parseReady('listening')).toBeNull();
    expect(parseReady('{"ready":false}')).toBeNull();
  });

  it('counts 200 2xx for 200 requests at 4 connections, rotating the requests', async () => {
    const server = await startChild({ id: 'bare', args: ['-e', bare] });
    let built = 0;
    const target: LoadTarget = {
      id: 'bare',
      title: 'bare',
      url: server.url,
      nextRequest: () => ({ method: 'POST', path: `/r/${built++}`, headers: { 'cx-authorization': 'x' } }),
      verifyBody: sessionBodyCheck(null, 1),
    };
    const r = await runLoad(target, { connections: 4, amount: 200, maxSeconds: 30 });
    expect(r.ok2xx).toBe(200);
    expect(r.responses).toBe(200);
    expect(r.statusCodes).toEqual({ '200': 200 });
    expect([r.non2xx, r.errors, r.timeouts, r.mismatches]).toEqual([0, 0, 0, 0]);
    expect(r.latencies).toHaveLength(200);
    expect(r.capped).toBe(false);
    expect(built).toBeGreaterThanOrEqual(200);
    const exit = await server.stop();
    expect(exit.code).toBe(0);
    expect(server.alive()).toBe(false);
  });

  it('paces a fixed-rate run: every request sent once, answered, tagged, counted; a loopback URL only', async () => {
    const server = await startChild({ id: 'bare', args: ['-e', bare] });
    let built = 0;
    const tags: string[] = [];
    const target: LoadTarget = {
      id: 'bare',
      title: 'bare',
      url: server.url,
      nextRequest: () => ({
        method: 'POST',
        path: `/r/${built}`,
        headers: { 'cx-authorization': 'x' },
        tag: String(built++),
      }),
      verifyBody: sessionBodyCheck(null, 1),
      onResponse: (status, tag) => {
        if (status === 200 && tag !== undefined) tags.push(tag);
      },
    };
    const r = await runPaced(target, { rate: 1000, amount: 150, connections: 4, maxSeconds: 30 });
    expect([r.responses, r.ok2xx, built]).toEqual([150, 150, 150]);
    expect([r.non2xx, r.errors, r.timeouts, r.mismatches]).toEqual([0, 0, 0, 0]);
    expect(r.latencies).toHaveLength(150);
    expect(r.capped).toBe(false);
    expect(tags.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 150 }, (_, i) => i));
    expect(() =>
      runPaced(
        { ...target, url: 'http://example.com:80' },
        { rate: 1, amount: 1, connections: 1, maxSeconds: 1 },
      ),
    ).toThrow(/127\.0\.0\.1/);
    const exit = await server.stop();
    expect(exit.code).toBe(0);
  });

  it("keeps the load generator off the servers' core, every thread of it, and gives the affinity back", () => {
    const allowed = () => /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]!;
    const before = allowed();
    const last = cpus().length - 1;
    const restore = keepOffCpu(last);
    try {
      if (last === 0) expect(allowed()).toBe(before);
      else {
        const during = allowed();
        expect(during).not.toBe(before);
        expect(during.split(',').flatMap(expandRange)).not.toContain(last);
        // Only `last` is taken out: the CPUs the process had are otherwise kept, never widened.
        expect(during.split(',').flatMap(expandRange)).toEqual(
          before
            .split(',')
            .flatMap(expandRange)
            .filter((c) => c !== last),
        );
        // Every thread of this process, not only the one that asked.
        for (const tid of readdirSync('/proc/self/task')) {
          const list = /Cpus_allowed_list:\s*(\S+)/.exec(
            readFileSync(`/proc/self/task/${tid}/status`, 'utf8'),
          )![1]!;
          expect(list.split(',').flatMap(expandRange)).not.toContain(last);
        }
      }
    } finally {
      restore();
    }
    expect(allowed()).toBe(before);
    expect(keepOffCpu(null)).toBeTypeOf('function');
    expect(allowed()).toBe(before);
  });

  it('gives the affinity back when the load it wraps fails', async () => {
    const allowed = () => /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]!;
    const before = allowed();
    const last = cpus().length - 1;
    let during = '';
    await expect(
      offServersCore(last, async () => {
        during = allowed();
        throw new Error('a broken round');
      }),
    ).rejects.toThrow('a broken round');
    if (last > 0) expect(during.split(',').flatMap(expandRange)).not.toContain(last);
    expect(allowed()).toBe(before);
    expect(pinNote(last)).toContain(`pinned to CPU ${last}`);
    expect(pinNote(null)).toContain('not pinned');
  });

  it('calls the bench broken when a target answers non-2xx', async () => {
    const server = await startChild({ id: 'bare', args: ['-e', bare] });
    const target: LoadTarget = {
      id: 'bare',
      title: 'bare',
      url: server.url,
      nextRequest: () => ({ method: 'GET', path: '/', headers: { 'x-fail': '1' } }),
    };
    const plan = {
      connections: 4,
      rounds: 1,
      roundSeconds: 1,
      warmupSeconds: 5,
      minAmount: 8,
      maxAmount: 40,
      capFactor: 2,
    };
    await expect(runInterleaved([target], plan)).rejects.toThrow(BenchBroken);
    await expect(runInterleaved([target], plan)).rejects.toThrow(/40 non-2xx.*401×40/);
    await server.stop();
  });

  it('refuses anything but 127.0.0.1, and reports a child that dies before its ready line', async () => {
    expect(() =>
      runLoad(
        {
          id: 'x',
          title: 'x',
          url: 'http://example.com:80',
          nextRequest: () => ({ method: 'GET', path: '/' }),
        },
        { connections: 1, amount: 1, maxSeconds: 1 },
      ),
    ).toThrow(/127\.0\.0\.1/);
    await expect(
      startChild({ id: 'dies', args: ['-e', 'console.error("boom"); process.exit(3)'] }),
    ).rejects.toThrow(/dies: exited before it was ready \(code 3\)[\s\S]*boom/);
  });
});

/** "0-2" → [0, 1, 2]; "3" → [3] (a Cpus_allowed_list item). */
function expandRange(item: string): number[] {
  const [a, b] = item.split('-').map(Number);
  return b === undefined ? [a!] : Array.from({ length: b - a! + 1 }, (_, i) => a! + i);
}
