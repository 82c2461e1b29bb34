/**
 * The conformance runner's case modules tested directly (issue 25 item 1: rules that were only
 * reachable through the runner's closure): every deliberately bad token fails the service's own
 * rules (checked against the engine, and with node:crypto for the signatures that must not
 * verify), the budget case's faults and metrics, the wording of a non-401 answer, the case
 * timeouts, and the masking of a customer's key in what a report keeps.
 */
import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badToken } from '../../../electron/core/conformance/bad-tokens';
import { budgetFaults, budgetMetrics, percentile } from '../../../electron/core/conformance/cases/budget';
import { caseTimeoutMs, caseText } from '../../../electron/core/conformance/cases';
import { notRefusedWhy } from '../../../electron/core/conformance/cases/negative';
import { expectedValid } from '../../../electron/core/conformance/cases/valid';
import { startJwksServer, type JwksServer } from '../../../electron/core/conformance/jwks-server';
import { generateRunnerKey, type RunnerKey } from '../../../electron/core/conformance/keys';
import { NEGATIVE_KINDS, planCases } from '../../../electron/core/conformance/plan';
import {
  expectationOf,
  newRunState,
  validToken,
  type RunState,
} from '../../../electron/core/conformance/run-state';
import { keptBody, quote } from '../../../electron/core/conformance/send';
import type { ExchangeResult } from '../../../electron/core/http';

let jwks: JwksServer;
let first: RunnerKey;
let stranger: RunnerKey;
const OBJ = 'DE89370400440532013000';
const SUB = 'ops@bank.example';

const stateWith = (
  over: { budgetCalls?: number; giveUpMs?: number; refreshWaitMs?: number } = {},
): RunState =>
  newRunState(
    {
      now: Date.now,
      budgetCalls: over.budgetCalls ?? 3,
      giveUpMs: over.giveUpMs ?? 5000,
      refreshWaitMs: over.refreshWaitMs ?? 11_000,
      first,
      stranger,
      published: [first],
      jwks,
    },
    { bankAuthUrl: 'http://127.0.0.1:9/auth//', obj: OBJ, sub: SUB },
    {},
    10,
  );

beforeAll(async () => {
  [first, stranger] = await Promise.all([generateRunnerKey(), generateRunnerKey()]);
  jwks = await startJwksServer({ port: 0, keys: () => [first.jwk], now: Date.now });
});
afterAll(async () => {
  await jwks.close();
});

const answer = (status: number, body: string, durationMs = 12): ExchangeResult =>
  ({
    ok: true,
    status,
    headers: {},
    body: Buffer.from(body),
    truncated: false,
    durationMs,
  }) as ExchangeResult;
const noAnswer = (message: string): ExchangeResult =>
  ({ ok: false, message, durationMs: 5000 }) as ExchangeResult;

describe('bad tokens', () => {
  it('the valid token passes the engine: the negative cases measure against a real pass', async () => {
    const state = stateWith();
    expect((await expectationOf(state, validToken(state))).ok).toBe(true);
    expect(state.base).toBe('http://127.0.0.1:9/auth');
  });

  it.each(NEGATIVE_KINDS)('%s fails the service rules, with words for the report', async (kind) => {
    const state = stateWith();
    const bad = badToken(kind, { obj: OBJ, sub: SUB, first, stranger, nowS: Math.floor(Date.now() / 1000) });
    const verdict = await expectationOf(state, bad.token);
    expect(verdict.ok).toBe(false);
    expect(bad.label.length).toBeGreaterThan(0);
    expect(bad.sent.length).toBeGreaterThan(0);
    expect(bad.accepted.length).toBeGreaterThan(0);
  });

  it('the wrong-key token names the published kid yet does not verify with its key (node:crypto)', () => {
    const bad = badToken('wrong-key', { obj: OBJ, sub: SUB, first, stranger, nowS: 1_800_000_000 });
    const [h, p, s] = bad.token!.split('.');
    expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toMatchObject({
      alg: 'RS256',
      kid: first.kid,
    });
    const publicKey = createPublicKey({ key: first.jwk as never, format: 'jwk' });
    const good = validToken(stateWith()).split('.');
    expect(
      verify('sha256', Buffer.from(`${good[0]}.${good[1]}`), publicKey, Buffer.from(good[2]!, 'base64url')),
    ).toBe(true);
    expect(verify('sha256', Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s!, 'base64url'))).toBe(false);
  });

  it('the time cases go two minutes past the leeway', () => {
    const nowS = 1_800_000_000;
    const claimsOf = (kind: 'expired' | 'iat-future') =>
      JSON.parse(
        Buffer.from(
          badToken(kind, { obj: OBJ, sub: SUB, first, stranger, nowS }).token!.split('.')[1]!,
          'base64url',
        ).toString(),
      ) as { iat: number; exp: number };
    expect(claimsOf('expired').exp).toBe(nowS - 120);
    expect(claimsOf('iat-future').iat).toBe(nowS + 120);
  });
});

describe('the budget case', () => {
  it('measures nearest-rank percentiles over the calls', () => {
    expect(percentile([], 50)).toBe(0);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 95)).toBe(4);
    expect(budgetMetrics([30.04, 10, 20])).toEqual({
      count: 3,
      p50_ms: 20,
      p95_ms: 30,
      max_ms: 30,
      budget_ms: 1000,
    });
  });

  it('names the slowest late call and quotes the first refused one', () => {
    const faults = budgetFaults(
      5,
      [
        { call: 2, ms: 1200 },
        { call: 4, ms: 1700.4 },
      ],
      [
        { call: 3, result: answer(503, 'busy') },
        { call: 5, result: noAnswer('ECONNRESET') },
      ],
    );
    expect(faults).toEqual([
      '2 of 5 took 1000 ms or more (slowest: call 4, 1700 ms)',
      '2 of 5 did not answer 200 (call 3: got 503 in 12 ms with busy)',
    ]);
    expect(budgetFaults(5, [], [{ call: 1, result: noAnswer('ECONNREFUSED') }])).toEqual([
      '1 of 5 did not answer 200 (call 1: no answer (ECONNREFUSED))',
    ]);
    expect(budgetFaults(5, [], [])).toEqual([]);
  });
});

describe('what a case says and how long it may take', () => {
  it('a non-401 answer to a bad token: accepted, or the wrong refusal status', () => {
    const bad = { accepted: 'an unsigned token' };
    expect(notRefusedWhy(answer(200, '{}'), bad)).toBe(': the bank accepted an unsigned token');
    expect(notRefusedWhy(answer(204, ''), bad)).toBe(': the bank accepted an unsigned token');
    expect(notRefusedWhy(answer(403, ''), bad)).toBe(
      ': spec 4.2 / 7 expect 401 Unauthorized when a check fails, not 403',
    );
    expect(notRefusedWhy(noAnswer('timeout'), bad)).toBe('');
  });

  it('gives each case kind its bound: N requests for the budget, a refresh wait where one may come', () => {
    const state = stateWith({ budgetCalls: 4, giveUpMs: 1000, refreshWaitMs: 3000 });
    const plan = planCases(4);
    const byKind = (kind: string) => plan.find((c) => c.kind === kind)!;
    expect(caseTimeoutMs(state, byKind('valid'))).toBe(1000 + 3000 + 1000);
    expect(caseTimeoutMs(state, byKind('rotation'))).toBe(1000 + 3000 + 1000);
    expect(caseTimeoutMs(state, byKind('budget'))).toBe(4000);
    expect(caseTimeoutMs(state, byKind('negative'))).toBe(1000);
    expect(caseTimeoutMs(stateWith({ refreshWaitMs: 0, giveUpMs: 1000 }), byKind('valid'))).toBe(1000);
    expect(caseText(state, byKind('valid'))).toContain(`not fetched yet in this run`);
    expect(caseText(state, byKind('budget'))).toBe(
      'GET /user_auth 4 times with valid tokens, each to be answered within 1000 ms',
    );
    expect(expectedValid('key')).toBe('200 with JSON {key}');
  });
});

describe('what a report keeps of an answer', () => {
  it("masks a customer's key to its length and cuts a body at 64 KiB", () => {
    const kept = keptBody(Buffer.from(JSON.stringify({ external_id: 'x', key: 'sécret-42' })));
    expect(kept).toEqual({
      text: JSON.stringify({ external_id: 'x', key: '<masked: 9 characters>' }),
      truncated: false,
    });
    expect(kept.text).not.toContain('sécret');
    const big = keptBody(Buffer.from('a'.repeat(70 * 1024)));
    expect(big.truncated).toBe(true);
    expect(big.text.length).toBeLessThan(65 * 1024);
    expect(quote(answer(200, JSON.stringify({ key: 'sécret-42' })))).toBe(
      '200 in 12 ms with {"key":"<masked>"}',
    );
    expect(quote(answer(401, '  '))).toBe('401 in 12 ms with an empty body');
  });
});
