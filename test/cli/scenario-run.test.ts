/**
 * `dets-console scenario run` as a bank's CI pipeline runs it (DESIGN.md "Scenarios"; issue 28):
 * the built CLI in its own process against a bank written the way a bank team would
 * (test/core/conformance/broken-bank.ts: node:http and jose, trusting the runner's JWKS) with
 * faults planted, and a notification host that answers repeats 409. Each failing step is named;
 * JUnit ids are the step names, the same across two runs and free of URLs; --expected-failures
 * works both ways; exit 0 for a pass, 1 for a failure, 2 for a malformed file (naming the step
 * and the field) and for bad flags.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Faults, TestBank } from '../core/conformance/broken-bank';
import { runBuiltCli } from './helpers';
import { jsonReport, startRunnerBank } from './support/cli-report';
import { cliTestFile } from './support/spawn-cli';

const CUSTOMER = {
  obj: 'DE89370400440532013000',
  sub: 'ops@bank.example',
  external_id: 'cust-000042',
  phone: '+4915112345678',
  key: 'user-secret-key-42',
};

const SCENARIO = {
  version: 1,
  name: 'ci-flow',
  variables: { obj: CUSTOMER.obj, sub: CUSTOMER.sub },
  steps: [
    { name: 'sign-in', kind: 'sign-in' },
    { name: 'key', kind: 'callback', route: 'key' },
    { name: 'expired-token', kind: 'callback', route: 'user_auth', token: 'expired' },
    { name: 'pay-in', kind: 'notification', event: 'pay-in', faults: { duplicates: 1 } },
    {
      name: 'pay-in-again',
      kind: 'notification',
      event: 'pay-in',
      transaction_id: '${pay-in.transaction_id}',
    },
  ],
};

const cli = cliTestFile('dets-scenario-run-');

/** A notification host: 200 for a new transaction_id, and (planted) 409 for a repeat when `refuseRepeats`. */
async function startNotifyHost(refuseRepeats: boolean) {
  const seen = new Set<string>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      let id: unknown;
      try {
        id = (JSON.parse(body) as { transaction_id?: unknown }).transaction_id;
      } catch {
        id = undefined;
      }
      if (typeof id !== 'string') return void res.writeHead(400).end('{"error":"bad body"}');
      const repeat = seen.has(id.toLowerCase());
      seen.add(id.toLowerCase());
      res.writeHead(repeat && refuseRepeats ? 409 : 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

interface Backend {
  bank: TestBank;
  notify: { url: string; close(): Promise<void> };
  jwksPort: number;
}

async function backend(faults: Faults, refuseRepeats: boolean): Promise<Backend> {
  return { ...(await startRunnerBank(CUSTOMER, faults)), notify: await startNotifyHost(refuseRepeats) };
}

const closeBackend = async (b: Backend) => Promise.all([b.bank.close(), b.notify.close()]);

let file = '';
beforeAll(async () => {
  file = path.join(cli.tmp, 'ci-flow.json');
  await writeFile(file, JSON.stringify(SCENARIO));
});

const run = (b: Backend, ...extra: string[]) =>
  runBuiltCli([
    'scenario',
    'run',
    file,
    '--bank-auth-url',
    b.bank.url,
    '--notify-url',
    b.notify.url,
    '--jwks-port',
    String(b.jwksPort),
    // The notifications go through the sandbox's delivery engine: a refused one is retried on
    // the service's ladder (243 s of waits) until it escalates; 0.01 plays that in 2.4 s.
    '--time-scale',
    '0.01',
    ...extra,
  ]);

/** The `<testcase>`s of a JUnit file: name, classname, and whether it failed or was skipped. */
function testcases(xml: string) {
  return [...xml.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)].map(
    (m) => ({
      name: m[1]!,
      classname: m[2]!,
      failed: m[3]!.includes('<failure'),
      skipped: m[3]!.includes('<skipped'),
    }),
  );
}

describe('scenario run against a sound bank', () => {
  let b: Backend;
  beforeAll(async () => (b = await backend({}, false)));
  afterAll(() => closeBackend(b));

  it('exit 0, a ready line and then one JSON report on stdout, every step passed', async () => {
    const r = await run(b, '--json');
    expect(r.code, r.stderr).toBe(0);
    const [ready, , ...rest] = r.stdout.trim().split('\n');
    expect(rest).toEqual([]);
    expect(JSON.parse(ready!)).toEqual({
      ready: true,
      jwks: `http://127.0.0.1:${b.jwksPort}/api/v1/.well-known/jwks.json`,
    });
    const parsed = jsonReport(r.stdout);
    expect(parsed.failed).toBe(0);
    expect(parsed.cases.map((c) => [c.id, c.status])).toEqual(SCENARIO.steps.map((s) => [s.name, 'passed']));
    // The table went to stderr, the secret key nowhere.
    expect(r.stderr).toContain('sign-in');
    expect(r.stdout + r.stderr).not.toContain(CUSTOMER.key);
  });
});

describe('scenario run against a bank with planted faults', () => {
  let b: Backend;
  beforeAll(async () => (b = await backend({ omitPhone: true, acceptExpired: true }, true)));
  afterAll(() => closeBackend(b));

  it('exit 1, each failing step named with the check that failed; the others pass', async () => {
    const r = await run(b, '--json');
    expect(r.code, r.stderr).toBe(1);
    const report = jsonReport(r.stdout);
    const status = Object.fromEntries(report.cases.map((c) => [c.id, c.status]));
    expect(status).toEqual({
      'sign-in': 'failed',
      key: 'passed',
      'expired-token': 'failed',
      'pay-in': 'failed',
      'pay-in-again': 'failed',
    });
    const detail = Object.fromEntries(report.cases.map((c) => [c.id, c.detail]));
    expect(detail['sign-in']).toMatch(/phone failed/);
    expect(detail['expired-token']).toMatch(/expected 401/);
    expect(detail['pay-in']).toMatch(/answered 409/);
    // The referenced transaction_id is the one pay-in sent: the bank has seen it, so 409 again.
    expect(detail['pay-in-again']).toContain(detail['pay-in']!.match(/transaction_id ([0-9a-f-]{36})/)![1]);
    // Refused every time, it went the whole way down the service's ladder (the delivery engine).
    expect(detail['pay-in-again']).toMatch(/#10 retry 10: 409/);
    expect(r.stderr).toMatch(/✗ ci-flow:sign-in/);
  });

  it('JUnit: one test case per step, named by it, the same over two runs and free of URLs', async () => {
    const first = path.join(cli.tmp, 'junit-1.xml');
    const second = path.join(cli.tmp, 'junit-2.xml');
    expect((await run(b, '--junit', first)).code).toBe(1);
    expect((await run(b, '--junit', second)).code).toBe(1);
    const [a, c] = [testcases(await readFile(first, 'utf8')), testcases(await readFile(second, 'utf8'))];
    expect(a.map((t) => t.name)).toEqual(SCENARIO.steps.map((s) => s.name));
    expect(c.map((t) => [t.name, t.classname])).toEqual(a.map((t) => [t.name, t.classname]));
    for (const t of a) {
      expect(t.classname).toBe('scenario.ci-flow');
      expect(`${t.name} ${t.classname}`).not.toMatch(/https?:|127\.0\.0\.1/);
    }
    expect(a.filter((t) => t.failed).map((t) => t.name)).toEqual([
      'sign-in',
      'expired-token',
      'pay-in',
      'pay-in-again',
    ]);
  });

  it('--expected-failures: listed failures do not fail the run, and a listed step that passes is named', async () => {
    const all = path.join(cli.tmp, 'xfail-all.json');
    await writeFile(
      all,
      JSON.stringify({
        'sign-in': 'bank#12: phone not sent yet',
        'expired-token': 'bank#13: exp not checked',
        'pay-in': 'bank#14: repeats refused',
        'pay-in-again': 'bank#14',
        key: 'was flaky last week',
      }),
    );
    const r = await run(b, '--json', '--expected-failures', all);
    expect(r.code, r.stderr).toBe(0);
    const report = jsonReport<{
      failed: number;
      expected_failures: number;
      now_passing: string[];
      cases: Array<{ id: string; status: string; expected_failure?: string }>;
    }>(r.stdout);
    expect(report.failed).toBe(0);
    expect(report.expected_failures).toBe(4);
    expect(report.now_passing).toEqual(['key']);
    expect(report.cases.find((c) => c.id === 'sign-in')).toMatchObject({
      status: 'expected-failure',
      expected_failure: 'bank#12: phone not sent yet',
    });
    expect(r.stderr).toContain('passed now (remove it): key');

    // Only some listed: the others still fail the run.
    const some = path.join(cli.tmp, 'xfail-some.json');
    await writeFile(some, JSON.stringify({ 'sign-in': 'bank#12' }));
    expect((await run(b, '--expected-failures', some)).code).toBe(1);
  });
});

describe('bad input: exit 2, one line naming what is wrong, nothing sent', () => {
  let b: Backend;
  beforeAll(async () => (b = await backend({}, false)));
  afterAll(() => closeBackend(b));

  const malformed = async (name: string, scenario: unknown) => {
    const f = path.join(cli.tmp, name);
    await writeFile(f, typeof scenario === 'string' ? scenario : JSON.stringify(scenario));
    return f;
  };

  it.each([
    [
      'a step of an unknown route',
      { ...SCENARIO, steps: [SCENARIO.steps[0], { name: 'kee', kind: 'callback', route: 'keys' }] },
      /step "kee" \(steps\[1\]\) route: /,
    ],
    [
      'a reference to a later step',
      { ...SCENARIO, steps: [SCENARIO.steps[4], SCENARIO.steps[3]] },
      /step "pay-in-again" \(steps\[0\]\) transaction_id: \$\{pay-in\.transaction_id\}: no earlier step is named "pay-in"/,
    ],
    [
      'two steps of one name',
      { ...SCENARIO, steps: [SCENARIO.steps[0], SCENARIO.steps[0]] },
      /step "sign-in" \(steps\[1\]\): name: another step has this name/,
    ],
    [
      'a member no step has',
      { ...SCENARIO, steps: [{ ...SCENARIO.steps[1], tokn: 'valid' }] },
      /step "key" \(steps\[0\]\): .*tokn/,
    ],
    ['another version', { ...SCENARIO, version: 2 }, /version: /],
    ['not JSON', '{"version": 1,', /not valid JSON/],
  ])('%s', async (_what, scenario, message) => {
    const f = await malformed(`bad-${Math.random().toString(36).slice(2)}.json`, scenario);
    const r = await runBuiltCli([
      'scenario',
      'run',
      f,
      '--bank-auth-url',
      b.bank.url,
      '--notify-url',
      b.notify.url,
      '--jwks-port',
      String(b.jwksPort),
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(f);
    expect(r.stderr).toMatch(message);
    expect(b.bank.requests).toBe(0);
  });

  it.each([
    [['--notify-url', 'http://127.0.0.1:9'], '--bank-auth-url: required by step "sign-in"'],
    [['--bank-auth-url', 'http://127.0.0.1:9'], '--notify-url: required by step "pay-in"'],
    [
      ['--bank-auth-url', 'ftp://x', '--notify-url', 'http://127.0.0.1:9'],
      '--bank-auth-url: "ftp://x" is not an http(s) URL',
    ],
    [
      ['--bank-auth-url', 'http://127.0.0.1:9', '--notify-url', 'http://127.0.0.1:9', '--time-scale', '2'],
      '--time-scale: "2" must be a number with 0 < F ≤ 1',
    ],
    [
      [
        '--bank-auth-url',
        'http://127.0.0.1:9',
        '--notify-url',
        'http://127.0.0.1:9',
        '--expected-failures',
        '/nonexistent/x.json',
      ],
      '--expected-failures: /nonexistent/x.json: cannot read it',
    ],
  ])('%j', async (flags, message) => {
    const r = await runBuiltCli(['scenario', 'run', file, ...flags]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('an expected-failures entry no step has is refused, naming it', async () => {
    const f = path.join(cli.tmp, 'xfail-stale.json');
    await writeFile(f, JSON.stringify({ 'sign-on': 'renamed since' }));
    const r = await run(b, '--expected-failures', f);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no step is named "sign-on"');
  });

  it('a file without obj and sub needs --obj and --sub', async () => {
    const { variables: _v, ...noVars } = SCENARIO;
    const f = await malformed('no-vars.json', noVars);
    const r = await runBuiltCli([
      'scenario',
      'run',
      f,
      '--bank-auth-url',
      b.bank.url,
      '--notify-url',
      b.notify.url,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--obj: required');
  });
});
