/**
 * The suite against the console's own bank endpoints (createBankEndpoints with one customer,
 * trusting the runner's JWKS): every case passes. Through the self-check (a private bank in a
 * temp folder) and through the contract handlers (progress events, last report, exports).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { CaseResult, ConformanceProgress } from '../../../electron/contract/schemas/conformance';
import { EventHub } from '../../../electron/core/event-hub';
import {
  conformanceHandlers,
  NOTIFY_CASES,
  planCases,
  runSelfCheck,
} from '../../../electron/core/conformance';
import { startTestBank } from './broken-bank';
import type { CoreDeps } from '../../../electron/core/core-types';

const tmpRoots: string[] = [];
afterAll(async () => {
  for (const dir of tmpRoots) await fs.rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

async function tmpRoot(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dets-conformance-test-'));
  tmpRoots.push(dir);
  return dir;
}

describe('self-check: the console’s own bank endpoints', () => {
  it('passes every case, reports each as it runs, and leaves no temp folder behind', async () => {
    const root = await tmpRoot();
    const seen: Array<[string, number, number]> = [];
    let ready: { jwksUrl: string; bankUrl: string; notifyUrl: string; total: number } | null = null;
    const report = await runSelfCheck(
      { tmpRoot: root, budgetCalls: 5, onReady: (r) => (ready = r) },
      { onCase: (c, done, total) => seen.push([c.id, done, total]) },
    );
    const failed = report.cases.filter((c) => c.status !== 'passed');
    expect(failed.map((c) => `${c.id}: ${c.detail}`)).toEqual([]);
    // Issue 27 item 4: the callback cases, then every notify.* case, in one report.
    const plan = [...planCases(5).map((c) => c.id), ...NOTIFY_CASES.map((c) => c.id)];
    expect(report.cases.map((c) => c.id)).toEqual(plan);
    expect(report).toMatchObject({ kind: 'self-check', passed: plan.length, failed: 0, skipped: 0 });
    expect(seen).toEqual(plan.map((id, i) => [id, i + 1, plan.length]));
    expect(ready).not.toBeNull();
    expect(report.notify_url).toBe(ready!.notifyUrl);
    // Every duplicate case asked the probe over the private bank's own store: applied once.
    for (const id of ['notify.repeat', 'notify.repeat.upper-case', 'notify.concurrent', 'notify.lost-ack']) {
      const c = report.cases.find((x) => x.id === id)!;
      expect(c.detail).toContain('the probe says it was applied once');
      const probe = c.exchanges.find((x) => x.label === 'probe')!;
      expect(JSON.parse(probe.response!.body)).toEqual({ count: 1 });
    }
    // The bank refused each malformed body with its 400 (intake.ts), and recorded it.
    for (const id of ['notify.not-json', 'notify.no-transaction-id', 'notify.bad-uuid']) {
      expect(report.cases.find((x) => x.id === id)!.exchanges[0]!.response!.status).toBe(400);
    }
    expect(report.jwks_url).toBe(ready!.jwksUrl);
    expect(report.jwks_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/\.well-known\/jwks\.json$/);
    // The rotation published a second kid and the bank came back for it.
    expect(report.kids).toHaveLength(2);
    expect(report.jwks_fetches).toBeGreaterThanOrEqual(2);
    const rotation = report.cases.find((c) => c.id === 'jwks.rotation')!;
    expect(rotation.detail).toMatch(/fetched the JWKS [1-9]\d* time\(s\) after the rotation/);
    expect(rotation.exchanges[0]!.token?.header.kid).toBe(report.kids[1]);
    // The budget cases measured every call.
    for (const route of ['user_auth', 'key', 'external_id']) {
      const budget = report.cases.find((c) => c.id === `${route}.budget`)!;
      expect(budget.exchanges).toHaveLength(5);
      expect(budget.metrics).toMatchObject({ count: 5, budget_ms: 1000 });
      expect(budget.metrics!.max_ms).toBeLessThan(1000);
      expect(budget.metrics!.p50_ms).toBeLessThanOrEqual(budget.metrics!.p95_ms);
    }
    // Each negative case got the bank's 401 naming the check it failed (DESIGN.md bank rules).
    const checkOf = (id: string) => {
      const body = report.cases.find((c) => c.id === id)!.exchanges[0]!.response!.body;
      return (JSON.parse(body) as { check: string }).check;
    };
    expect(checkOf('user_auth.no-header')).toBe('present');
    expect(checkOf('user_auth.not-jwt')).toBe('structure');
    expect(checkOf('user_auth.alg-none')).toBe('alg');
    expect(checkOf('key.hs256-public-key')).toBe('alg');
    expect(checkOf('key.wrong-key')).toBe('signature');
    expect(checkOf('external_id.unknown-kid')).toBe('kid');
    expect(checkOf('external_id.expired')).toBe('exp');
    expect(checkOf('user_auth.iat-future')).toBe('iat');
    expect(checkOf('user_auth.flow')).toBe('flow');
    expect(checkOf('key.unknown-obj')).toBe('obj');
    expect(checkOf('user_auth.foreign-sub')).toBe('sub');
    // The whole exchange is kept: the token sent, the answer; the customer's key masked.
    const valid = report.cases.find((c) => c.id === 'user_auth.valid')!;
    const x = valid.exchanges[0]!;
    expect(x.request.headers['X-Session-ID']).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(x.token?.payload).toMatchObject({ flow: 'sign-in', obj: report.obj, sub: report.sub });
    expect(x.response?.status).toBe(200);
    expect(JSON.parse(x.response!.body)).toMatchObject({
      external_id: 'self-check-0001',
      key: expect.stringMatching(/^<masked: \d+ characters>$/),
    });
    // No private key anywhere in the report.
    const text = JSON.stringify(report);
    expect(text).not.toMatch(/PRIVATE KEY|"d":|"p":|"q":|"dp":/);
    // The private bank's folder is gone.
    expect(await fs.readdir(root)).toEqual([]);
  });
});

describe('self-check: a planted fault in the private bank is caught by its case', () => {
  it('notifications answered 409 (a bank refusing what it already took) fail the notify cases that send them', async () => {
    const root = await tmpRoot();
    const report = await runSelfCheck({
      tmpRoot: root,
      budgetCalls: 1,
      behaviours: { 'pay-in': { status: 409 } },
    });
    const failed = report.cases.filter((c) => c.status === 'failed').map((c) => c.id);
    // Every case that posts a valid pay-in is caught; the others and the callback cases pass.
    expect(failed).toEqual([
      'notify.pay-in.valid',
      'notify.repeat',
      'notify.repeat.upper-case',
      'notify.concurrent',
      'notify.lost-ack',
    ]);
    expect(report.cases.find((c) => c.id === 'notify.repeat')!.detail).toMatch(/^the first delivery: status/);
    expect(report.failed).toBe(5);
    expect(await fs.readdir(root)).toEqual([]);
  });
});

describe('contract handlers', () => {
  it('selfCheck emits progress per case, keeps the last report, exports JSON and JUnit; a second run at once is refused', async () => {
    const events = new EventHub();
    const progress: ConformanceProgress[] = [];
    events.on('conformance.progressed', (p) => progress.push(p));
    const handlers = conformanceHandlers({ events } as unknown as CoreDeps);
    expect(await handlers['conformance.lastReport'](undefined)).toBeNull();
    await expect(handlers['conformance.export']({ format: 'json' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });

    const running = handlers['conformance.selfCheck'](undefined);
    await expect(handlers['conformance.selfCheck'](undefined)).rejects.toMatchObject({ code: 'CONFLICT' });
    const report = await running;
    expect(report.failed).toBe(0);

    expect(progress[0]).toMatchObject({
      phase: 'started',
      done: 0,
      kind: 'self-check',
      total: report.cases.length,
    });
    const cases = progress.filter((p) => p.phase === 'case');
    expect(cases.map((p) => p.done)).toEqual(report.cases.map((_, i) => i + 1));
    expect(cases.map((p) => (p.case as CaseResult).id)).toEqual(report.cases.map((c) => c.id));
    expect(progress.at(-1)).toMatchObject({ phase: 'finished', passed: report.cases.length, failed: 0 });
    expect(new Set(progress.map((p) => p.run_id)).size).toBe(1);
    // Each case is announced as it begins, with its timeout; the first names the JWKS to fetch.
    const begun = progress.filter((p) => p.phase === 'activity' && p.activity?.kind === 'case');
    expect(begun.map((p) => p.activity!.case_id)).toEqual(report.cases.map((c) => c.id));
    expect(progress[1]).toMatchObject({ phase: 'activity', done: 0, activity: { jwks_fetches: 0 } });
    expect(progress[1]!.activity!.text).toContain(
      `the bank must fetch the runner's JWKS at ${report.jwks_url}`,
    );
    for (const p of begun) expect(p.activity!.timeout_ms).toBeGreaterThan(0);
    const budget = begun.find((p) => p.activity!.case_id === 'user_auth.budget')!;
    expect(budget.activity!.timeout_ms).toBeGreaterThan(begun[0]!.activity!.timeout_ms - 1);

    expect(await handlers['conformance.lastReport'](undefined)).toEqual(report);
    const json = await handlers['conformance.export']({ format: 'json' });
    expect(json.filename).toMatch(/^conformance-.*\.json$/);
    const parsed = JSON.parse(json.text) as { cases: CaseResult[] };
    expect(parsed.cases[0]!.exchanges[0]!.request.headers['X-Session-ID']).toBeTruthy();
    expect(json.text).not.toMatch(/PRIVATE KEY/);
    const junit = await handlers['conformance.export']({ format: 'junit' });
    expect(junit.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(junit.text).toContain(`tests="${report.cases.length}" failures="0"`);
  });

  it('run plays the service against a bank on the JWKS port it was given, reporting progress as kind run', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const customer = {
      obj: 'DE02120300000000202051',
      sub: 'ops@bank.example',
      external_id: 'x-1',
      phone: '+1',
      key: 'k-123',
    };
    const bank = await startTestBank({
      jwksUrl: `http://127.0.0.1:${port}/api/v1/.well-known/jwks.json`,
      customer,
    });
    try {
      const events = new EventHub();
      const progress: ConformanceProgress[] = [];
      events.on('conformance.progressed', (p) => progress.push(p));
      const handlers = conformanceHandlers({ events } as unknown as CoreDeps);
      const report = await handlers['conformance.run']({
        bank_auth_url: bank.url,
        obj: customer.obj,
        sub: customer.sub,
        jwks_port: port,
      });
      expect(report.cases.filter((c) => c.status !== 'passed').map((c) => c.id)).toEqual([]);
      expect(report).toMatchObject({
        kind: 'run',
        jwks_url: `http://127.0.0.1:${port}/api/v1/.well-known/jwks.json`,
      });
      expect(progress.map((p) => p.kind)).toEqual(progress.map(() => 'run'));
      expect(progress[0]).toMatchObject({
        phase: 'started',
        jwks_url: report.jwks_url,
        bank_auth_url: bank.url,
      });
      expect(progress.at(-1)).toMatchObject({ phase: 'finished', done: report.cases.length });
      // The JWKS port is free again once the run is over.
      const again = net.createServer();
      await new Promise<void>((resolve, reject) => {
        again.once('error', reject);
        again.listen(port, '127.0.0.1', resolve);
      });
      again.close();
    } finally {
      await bank.close();
    }
  });

  it('run names a taken JWKS port', async () => {
    const events = new EventHub();
    const handlers = conformanceHandlers({ events } as unknown as CoreDeps);
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await expect(
        handlers['conformance.run']({
          bank_auth_url: 'http://127.0.0.1:9',
          obj: 'a',
          sub: 'b',
          jwks_port: port,
        }),
      ).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`JWKS port ${port}`) });
    } finally {
      blocker.close();
    }
  });
});
