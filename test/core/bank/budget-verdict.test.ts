import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetDetail, overBudget } from '../../../electron/core/http/budget';
import {
  claims,
  cleanup,
  eventCount,
  get,
  lastEvent,
  serviceJwt,
  startBank,
  type BankFixture,
} from './helpers';

// Issue 13 item 2: one verdict per callback. A callback answered over the 1 s budget (spec 4.2, 8)
// is failed `budget` in its stored event, so the Callbacks page, its "Failed only" filter and
// grouping (server-side queries on failed_check), the walkthrough and the evidence pack agree.

let fx: BankFixture;
let callbacks = 0;

/** The newest callback, once the bank has recorded the one just answered (it records after answering). */
async function recorded() {
  callbacks += 1;
  await eventCount(fx.store, 'callback', callbacks);
  return lastEvent(fx.store, 'callback');
}

beforeAll(async () => {
  fx = await startBank();
});
afterAll(cleanup);

describe('the budget rule', () => {
  it('is over only past 1000 ms, in the same words everywhere', () => {
    expect(overBudget(1000)).toBe(false);
    expect(overBudget(1000.5)).toBe(true);
    expect(budgetDetail(1503)).toMatch(/answered in 1,503 ms: over the 1 s budget/);
    expect(budgetDetail(12)).toMatch(/within the 1 s budget/);
  });
});

describe('a callback over the budget', () => {
  it('is stored failed `budget` (status as answered), found by the failed filters, with the budget check', async () => {
    await fx.bank.setBehaviours({ user_auth: { delay_ms: 1500 } });
    try {
      const r = await get(`${fx.url}/user_auth`, await serviceJwt(fx.key));
      // The answer itself is the same (200 with the user data): only its time fails it.
      expect(r.status).toBe(200);
      const e = await recorded();
      expect(e).toMatchObject({ status: 200, failed_check: 'budget', warning: null });
      expect(e.duration_ms).toBeGreaterThan(1000);
      // Every token check passed, and every answer check but the budget, failed with its words.
      const checks = e.checks ?? [];
      expect(checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual(['budget']);
      expect(checks.find((c) => c.id === 'budget')?.detail).toMatch(/over the 1 s budget/);
      // The failed filters are queries on failed_check: the same answer the page shows.
      const failed = await fx.store.query({ kind: 'callback', failed: true });
      expect(failed.events.map((x) => x.id)).toContain(e.id);
      const byCheck = await fx.store.query({ kind: 'callback', failed_check: 'budget' });
      expect(byCheck.events.map((x) => x.id)).toEqual([e.id]);
      // Re-check judges the token now and leaves the recorded verdict as it was.
      const again = await fx.bank.recheck(e.id);
      expect(again.failed_check).toBeNull();
      expect(again.data).toMatchObject({ recheck: { was: 'budget', now: null } });
      expect((await fx.store.get(e.id)).failed_check).toBe('budget');
    } finally {
      await fx.bank.setBehaviours({});
    }
  });

  it('keeps a failed token check as the verdict when the answer was also late (the budget a warning)', async () => {
    await fx.bank.setBehaviours({ user_auth: { delay_ms: 1100 } });
    try {
      const r = await get(`${fx.url}/user_auth`, await serviceJwt(fx.key, claims({ sub: 'someone@else' })));
      expect(r.status).toBe(401);
      const e = await recorded();
      expect(e.failed_check).toBe('sub');
      expect(e.warning).toMatch(/over the 1 s budget/);
    } finally {
      await fx.bank.setBehaviours({});
    }
  });

  it('a quick callback passes with the budget check passed', async () => {
    const r = await get(`${fx.url}/user_auth`, await serviceJwt(fx.key));
    expect(r.status).toBe(200);
    const e = await recorded();
    expect(e.failed_check).toBeNull();
    expect(e.checks?.find((c) => c.id === 'budget')).toMatchObject({ id: 'budget', status: 'passed' });
  });
});
