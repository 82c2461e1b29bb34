/**
 * The suite against deliberately broken bank implementations (broken-bank.ts: node:http + jose,
 * one fault each): every run has failures, and the case that names the fault fails. A correct
 * bank written the same way passes every case, so each failure is the fault's and not the
 * harness's.
 */
import { exitCodeFor } from '../../../electron/cli/commands/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceReport } from '../../../electron/contract/schemas/conformance';
import { startConformance, type ConformanceRunner } from '../../../electron/core/conformance';
import { startTestBank, type Faults, type TestBank } from './broken-bank';

/** Every route's valid and budget cases, in run order: what a bank that answers no valid token right fails. */
const VALID_AND_BUDGET = ['valid', 'budget'].flatMap((kind) =>
  ['user_auth', 'key', 'external_id'].map((route) => `${route}.${kind}`),
);

const CUSTOMER = {
  obj: 'DE89370400440532013000',
  sub: 'ops@bank.example',
  external_id: 'cust-000042',
  phone: '+4915112345678',
  key: 'user-secret-key-42',
};

const opened: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const o of opened.splice(0)) await o.close().catch(() => undefined);
});

/** A fresh runner (own keys, own JWKS on port 0) against a fresh bank with `faults`. */
async function runAgainst(
  faults: Faults,
  options: { budgetCalls?: number } = {},
): Promise<{ report: ConformanceReport; bank: TestBank; runner: ConformanceRunner }> {
  const runner = await startConformance({
    jwksPort: 0,
    budgetCalls: options.budgetCalls ?? 2,
    refreshWaitMs: 0,
  });
  opened.push(runner);
  const bank = await startTestBank({ jwksUrl: runner.jwksUrl, customer: CUSTOMER, faults });
  opened.push(bank);
  const report = await runner.run({ bankAuthUrl: `${bank.url}/`, obj: CUSTOMER.obj, sub: CUSTOMER.sub });
  // `dets-console conformance` exits with exactly this: 1 for every broken bank, 0 for a good one.
  expect(exitCodeFor(report)).toBe(Object.values(faults).some(Boolean) ? 1 : 0);
  return { report, bank, runner };
}

const statusOf = (report: ConformanceReport, id: string) => {
  const c = report.cases.find((x) => x.id === id);
  if (!c) throw new Error(`no case ${id}`);
  return c.status;
};
const failedIds = (report: ConformanceReport) =>
  report.cases.filter((c) => c.status === 'failed').map((c) => c.id);
const detailOf = (report: ConformanceReport, id: string) => report.cases.find((x) => x.id === id)!.detail;

describe('a correct bank written by a bank team', () => {
  it('passes every case', async () => {
    const { report } = await runAgainst({});
    expect(failedIds(report)).toEqual([]);
    expect(report.skipped).toBe(0);
    expect(report.passed).toBe(report.cases.length);
  });
});

describe('broken banks: the case naming the fault fails', () => {
  it('accepts expired tokens → *.expired', async () => {
    const { report } = await runAgainst({ acceptExpired: true });
    expect(failedIds(report)).toEqual(['user_auth.expired', 'key.expired', 'external_id.expired']);
    expect(detailOf(report, 'key.expired')).toMatch(
      /exp 120 s in the past.*got 200.*expected 401: the bank accepted an expired token/,
    );
  });

  it('accepts alg none → *.alg-none', async () => {
    const { report } = await runAgainst({ acceptAlgNone: true });
    expect(failedIds(report)).toEqual(['user_auth.alg-none', 'key.alg-none', 'external_id.alg-none']);
    expect(detailOf(report, 'user_auth.alg-none')).toMatch(
      /unsigned token.*expected 401: the bank accepted an unsigned token/,
    );
  });

  it('ignores sub → *.foreign-sub', async () => {
    const { report } = await runAgainst({ ignoreSub: true });
    expect(failedIds(report)).toEqual([
      'user_auth.foreign-sub',
      'key.foreign-sub',
      'external_id.foreign-sub',
    ]);
  });

  it('never checks the signature → *.wrong-key', async () => {
    const { report } = await runAgainst({ skipSignature: true });
    expect(report.failed).toBeGreaterThan(0);
    expect(statusOf(report, 'user_auth.wrong-key')).toBe('failed');
    expect(failedIds(report)).toEqual(['user_auth.wrong-key', 'key.wrong-key', 'external_id.wrong-key']);
    expect(detailOf(report, 'user_auth.wrong-key')).toMatch(/does not check the signature/);
  });

  it('answers after 1.3 s → *.valid fail `budget` (the body still judged) and *.budget', async () => {
    const { report } = await runAgainst({ delayMs: 1300 }, { budgetCalls: 1 });
    // The one answer judge (issue 24): a valid token answered late failed, whatever it answered.
    expect(failedIds(report)).toEqual(VALID_AND_BUDGET);
    const valid = report.cases.find((c) => c.id === 'user_auth.valid')!;
    expect(valid.failed_check).toBe('budget');
    expect(valid.detail).toMatch(/budget failed: answered in 1,3\d\d ms: over the 1 s budget/);
    const budget = report.cases.find((c) => c.id === 'key.budget')!;
    expect(budget.metrics!.max_ms).toBeGreaterThanOrEqual(1300);
    expect(budget.detail).toMatch(/1 of 1 took 1000 ms or more/);
  });

  it('omits phone → user_auth.valid', async () => {
    const { report } = await runAgainst({ omitPhone: true });
    expect(failedIds(report)).toEqual(['user_auth.valid']);
    expect(detailOf(report, 'user_auth.valid')).toMatch(/: phone failed: phone missing/);
    expect(report.cases.find((c) => c.id === 'user_auth.valid')?.failed_check).toBe('phone');
    // It still answered 200, so the negative cases on /user_auth ran.
    expect(statusOf(report, 'user_auth.alg-none')).toBe('passed');
  });

  it('returns a 501-symbol external_id → user_auth.valid and external_id.valid', async () => {
    const { report } = await runAgainst({ longExternalId: true });
    expect(failedIds(report)).toEqual(['user_auth.valid', 'external_id.valid']);
    expect(detailOf(report, 'external_id.valid')).toMatch(
      /external_id_length failed: external_id is 501 code points long: over the 500 spec 2\.5 and 8 allow/,
    );
  });

  it('caches the JWKS forever → jwks.rotation', async () => {
    const { report } = await runAgainst({ cacheJwksForever: true });
    expect(failedIds(report)).toEqual(['jwks.rotation']);
    expect(detailOf(report, 'jwks.rotation')).toMatch(
      /fetched the JWKS 0 time\(s\) after the rotation: it caches/,
    );
  });
});

describe('a bank that is not there or refuses everything', () => {
  let runner: ConformanceRunner;
  beforeAll(async () => {
    runner = await startConformance({ jwksPort: 0, budgetCalls: 1, refreshWaitMs: 0, giveUpMs: 2000 });
    opened.push(runner);
  });

  it('connection refused: the valid and budget cases fail, the rest are skipped, not passed', async () => {
    const report = await runner.run({ bankAuthUrl: 'http://127.0.0.1:9', obj: 'x', sub: 'y' });
    expect(report.passed).toBe(0);
    expect(failedIds(report)).toEqual(VALID_AND_BUDGET);
    expect(report.skipped).toBe(report.cases.length - 6);
    expect(detailOf(report, 'key.valid')).toMatch(/no answer.*connection refused/);
  });

  it('a bank that does not know the customer: user_auth.valid says what to configure', async () => {
    const bank = await startTestBank({
      jwksUrl: runner.jwksUrl,
      customer: { ...CUSTOMER, obj: 'someone-else' },
    });
    opened.push(bank);
    const report = await runner.run({ bankAuthUrl: bank.url, obj: CUSTOMER.obj, sub: CUSTOMER.sub });
    expect(statusOf(report, 'user_auth.valid')).toBe('failed');
    expect(detailOf(report, 'user_auth.valid')).toContain(`trust ${runner.jwksUrl}`);
    expect(detailOf(report, 'user_auth.valid')).toContain(`obj "${CUSTOMER.obj}"`);
  });
});
