import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventDetail } from '../../../electron/contract/schemas/events';
import { ANSWER_CHECK_IDS } from '../../../electron/contract/schemas/inspector';
import { rebuildCallbackDetail } from '../../../electron/core/bank/callback-detail';
import { blankEvent } from '../../../electron/core/store';
import {
  CUSTOMER,
  claims,
  cleanup,
  eventCount,
  get,
  makeServiceKey,
  nowSeconds,
  rawJwt,
  serviceJwt,
  startBank,
  type BankFixture,
} from './helpers';

// Issue 11: a callback's event is small when written (the raw token and the verdict) and whole
// when read: the decoded token and the checks are rebuilt, the same as the engine lists them.

let fx: BankFixture;
let callbacks = 0;

beforeAll(async () => {
  fx = await startBank({ customers: [CUSTOMER] });
});
afterAll(cleanup);

/** The stored record of the request just made, as written. */
async function stored(): Promise<EventDetail> {
  callbacks += 1;
  await eventCount(fx.store, 'callback', callbacks);
  const page = await fx.store.query({ kind: 'callback', limit: 1 });
  return fx.store.get(page.events[0]!.id);
}

describe('the stored callback event', () => {
  it('holds the raw token and the verdict, not the decoded token or the checks', async () => {
    const token = await serviceJwt(fx.key);
    expect((await get(`${fx.url}/user_auth`, token)).status).toBe(200);
    const e = await stored();
    expect(e).toMatchObject({ status: 200, failed_check: null, obj: 'DE001', checks: null, token: null });
    expect(e.request?.headers['x-session-id']).toBe(token);
    expect(e.data).toEqual({ verdict: { detail: null, answer: 1 } });
    // Every field of an event, in blankEvent's order, then the verdict: the stored JSON is the
    // same however the bank builds the event.
    expect(Object.keys(e)).toEqual(['id', ...Object.keys(blankEvent('callback', e.at)), 'data']);
    expect(e.response?.body).toContain(`<masked: ${CUSTOMER.key.length} characters>`);
    expect(e.jwks).toMatchObject({ url: fx.jwks.url, kids: [fx.key.kid] });
    const whole = rebuildCallbackDetail(e);
    expect(JSON.stringify(e).length).toBeLessThan(JSON.stringify(whole).length * 0.6);
    expect(whole.data).toBeUndefined();
    expect(whole.token?.payload).toMatchObject({ obj: 'DE001', sub: CUSTOMER.sub });
  });

  it('leaves events that are not small callback records as they are', async () => {
    await get(`${fx.url}/nope`);
    const e = await stored();
    // Refused before any check: kept as a compact record (issue 12), nothing to rebuild.
    expect(e.data).toMatchObject({ compact: true, reason: expect.stringContaining('no route GET /nope') });
    expect(rebuildCallbackDetail(e)).toBe(e);
    const old = { ...e, checks: [], token: null, data: { verdict: { detail: null } } };
    expect(rebuildCallbackDetail(old)).toBe(old);
  });
});

describe('rebuilt on read, as the engine judged it', () => {
  type Unproven = () => Promise<{ token: string | undefined; header: Record<string, unknown> | null }>;
  const unproven: Array<[string, Unproven, string]> = [
    ['no header', async () => ({ token: undefined, header: null }), 'present'],
    ['garbage', async () => ({ token: 'not-a-token', header: null }), 'structure'],
    [
      'alg none',
      async () => ({
        token: rawJwt({ alg: 'none', kid: fx.key.kid }, claims()),
        header: { alg: 'none', kid: fx.key.kid },
      }),
      'alg',
    ],
    [
      'crit',
      async () => {
        const header = { alg: 'RS256', kid: fx.key.kid, crit: ['x'], x: 1 };
        return { token: rawJwt(header, claims(), 'c2ln'), header };
      },
      'crit',
    ],
    [
      'unknown kid',
      async () => {
        const other = await makeServiceKey();
        return { token: await serviceJwt(other), header: { alg: 'RS256', kid: other.kid, typ: 'JWT' } };
      },
      'kid',
    ],
    [
      'wrong key, right kid',
      async () => ({
        token: await serviceJwt(await makeServiceKey(fx.key.kid)),
        header: { alg: 'RS256', kid: fx.key.kid, typ: 'JWT' },
      }),
      'signature',
    ],
  ];

  // DESIGN.md "Storage": a token that was not proven (present … signature) is stored compact:
  // route, time, remote, the failed check and its reason, the token's header, the sizes.
  it.each(unproven)(
    '%s: not proven, kept as a compact record with its reason and header',
    async (_n, make, failed) => {
      const { token, header } = await make();
      const r = await get(`${fx.url}/user_auth`, token);
      expect(r.status).toBe(401);
      const e = await stored();
      expect(e).toMatchObject({
        failed_check: failed,
        path: '/user_auth',
        status: 401,
      });
      expect(e.request).toBeNull();
      expect(e.response).toBeNull();
      expect(e.token).toEqual(header === null ? null : { header, payload: null });
      expect(e.data).toMatchObject({
        compact: true,
        reason: `${failed}: ${(r.body as { detail: string }).detail}`,
        request_header_bytes: expect.any(Number),
      });
      // Read back, it lists its checks as the pages show them: passed up to the failed one,
      // which keeps the reason it was refused with, the rest not checked.
      const checks = rebuildCallbackDetail(e).checks ?? [];
      const at = checks.findIndex((c) => c.status === 'failed');
      if (failed === 'present') {
        expect(checks.length).toBeGreaterThan(0);
        expect(checks.every((c) => c.status === 'skipped')).toBe(true);
      } else {
        expect(checks[at]).toMatchObject({ id: failed, detail: (r.body as { detail: string }).detail });
        expect(checks.slice(0, at).every((c) => c.status === 'passed')).toBe(true);
        expect(checks.slice(at + 1).every((c) => c.status === 'skipped')).toBe(true);
      }
    },
  );

  const cases: Array<[string, () => Promise<string | undefined>, string | null]> = [
    ['valid', () => serviceJwt(fx.key), null],
    [
      'expired',
      async () => serviceJwt(fx.key, claims({ iat: nowSeconds() - 900, exp: nowSeconds() - 300 })),
      'exp',
    ],
    [
      'iat ahead',
      async () => serviceJwt(fx.key, claims({ iat: nowSeconds() + 300, exp: nowSeconds() + 900 })),
      'iat',
    ],
    ['nbf ahead', async () => serviceJwt(fx.key, claims({ nbf: nowSeconds() + 300 })), 'nbf'],
    ['flow', async () => serviceJwt(fx.key, claims({ flow: 'sign-up' })), 'flow'],
    ['obj', async () => serviceJwt(fx.key, claims({ obj: 'NOPE' })), 'obj'],
    ['sub', async () => serviceJwt(fx.key, claims({ sub: 'someone@else' })), 'sub'],
  ];

  it.each(cases)('%s', async (_name, make, failed) => {
    const token = await make();
    const r = await get(`${fx.url}/user_auth`, token);
    const e = await stored();
    expect(e.failed_check).toBe(failed);
    const whole = rebuildCallbackDetail(e);
    // The engine's own list for the same token now (the JWKS and the customers are unchanged).
    const now = await fx.bank.recheck(e.id);
    expect(now.failed_check).toBe(failed);
    // The rebuilt list ends with the answer's checks (issue 24: the one answer judge, on the
    // answer the bank gave): facts of that answer, not of the token.
    const isAnswer = (id: string) => (ANSWER_CHECK_IDS as readonly string[]).includes(id);
    const tokenChecks = whole.checks?.filter((c) => !isAnswer(c.id));
    expect(tokenChecks?.map((c) => [c.id, c.status])).toEqual(now.checks?.map((c) => [c.id, c.status]));
    // A failing token answered 401 in time: reachable, budget and status (401) pass; the body is not judged.
    expect(whole.checks?.filter((c) => isAnswer(c.id)).map((c) => [c.id, c.status])).toEqual(
      ANSWER_CHECK_IDS.map((id) => [
        id,
        failed === null || ['reachable', 'budget', 'status'].includes(id) ? 'passed' : 'skipped',
      ]),
    );
    expect(whole.token).toEqual(now.token);
    if (failed === null || failed === 'present') return;
    // The failure's detail is the one the callback was answered with.
    const answered = (r.body as { detail: string }).detail;
    expect(whole.checks?.find((c) => c.id === failed)?.detail).toBe(answered);
    const after = tokenChecks?.filter((c) => c.status === 'skipped' && c.id !== 'nbf') ?? [];
    for (const c of after)
      expect(c.detail).toBe(
        failed === 'present' ? 'not checked: no X-Session-ID' : `not checked: ${failed} failed first`,
      );
  });
});

describe("the console's own answer, judged (issue 24)", () => {
  it('a behaviour that omits phone: answered 200 as the behaviour says, the event failed `phone`', async () => {
    await fx.bank.setBehaviours({ user_auth: { omit_field: 'phone' } });
    try {
      const r = await get(`${fx.url}/user_auth`, await serviceJwt(fx.key));
      // What the bank answers is unchanged: only the verdict recorded is the judge's.
      expect(r.status).toBe(200);
      expect(r.body).not.toHaveProperty('phone');
      const e = await stored();
      expect(e).toMatchObject({ status: 200, failed_check: 'phone' });
      expect(e.data).toEqual({ verdict: { detail: 'phone missing', answer: 1 } });
      const whole = rebuildCallbackDetail(e);
      expect(whole.checks?.filter((c) => c.status === 'failed')).toEqual([
        { id: 'phone', title: 'phone', status: 'failed', detail: 'phone missing' },
      ]);
      // The masked key in the record is still judged present (its length only).
      expect(whole.checks?.find((c) => c.id === 'key')).toMatchObject({
        status: 'passed',
        detail: expect.not.stringContaining(CUSTOMER.key),
      });
      // The failed filters find it: it is a failed callback on every page.
      const failed = await fx.store.query({ kind: 'callback', failed_check: 'phone' });
      expect(failed.events.map((x) => x.id)).toContain(e.id);
    } finally {
      await fx.bank.setBehaviours({});
    }
  });

  it('an event recorded before the answer judge is rebuilt as it was judged then (token checks and the budget)', async () => {
    expect((await get(`${fx.url}/key`, await serviceJwt(fx.key))).status).toBe(200);
    const e = await stored();
    const old = { ...e, data: { verdict: { detail: null } } };
    const whole = rebuildCallbackDetail(old);
    expect(
      whole.checks?.map((c) => c.id).filter((id) => (ANSWER_CHECK_IDS as readonly string[]).includes(id)),
    ).toEqual(['budget']);
    expect(whole.checks?.at(-1)).toMatchObject({ id: 'budget', status: 'passed' });
  });
});
