/**
 * How step 6 reads a stored /user_auth callback (facts.ts callbackFact): the event's one verdict
 * (issue 24: the token's checks, then the answer judge's), with its recorded words; and a callback
 * stored before the answer judge, whose forward target's failure lived only in its verdicts.
 */
import { describe, expect, it } from 'vitest';
import { EventDetail } from '../../../electron/contract/schemas/events';
import { blankEvent } from '../../../electron/core/store';
import { deriveSteps } from '../../../electron/core/walkthrough/derive';
import { callbackFact } from '../../../electron/core/walkthrough/facts';
import { env, facts, t } from './fixtures';

/** A stored callback, through the contract's own schema (old ids such as `time` must parse). */
function stored(over: Record<string, unknown>): EventDetail {
  return EventDetail.parse({
    ...blankEvent('callback', t(10)),
    id: 'e000000000001',
    path: '/user_auth',
    method: 'GET',
    status: 200,
    duration_ms: 4,
    ...over,
  });
}
const forward = (verdicts: Array<{ id: string; status: string; detail: string }>) => ({
  url: 'http://127.0.0.1:8080/user_auth',
  status: 200,
  duration_ms: 3,
  error: null,
  verdicts: verdicts.map((v) => ({ title: v.id, ...v })),
});
const step6 = (e: EventDetail) =>
  deriveSteps(
    facts({ env: env({ id: 'real', kind: 'real' }), callbacks: [callbackFact(e, e)] }),
    Date.parse(t(20)),
  ).find((s) => s.id === 'sign-in')!;

describe('step 6 reads the one verdict of a callback', () => {
  it("the console's own answer without phone: failed phone, in the judge's words", () => {
    const e = stored({ failed_check: 'phone', data: { verdict: { detail: 'phone missing', answer: 1 } } });
    expect(callbackFact(e, e)).toMatchObject({
      failed_check: 'phone',
      detail: 'phone missing',
      forward_ok: null,
    });
    expect(step6(e)).toMatchObject({ state: 'failed', reason: 'check phone failed: phone missing' });
    expect(step6(e).fix).toMatch(/omit-phone behaviour/);
  });

  it("a forward target's answer failing the judge names the target", () => {
    const e = stored({
      failed_check: 'key',
      data: { verdict: { detail: 'key is only whitespace (3 characters)', answer: 1 } },
      forward: forward([
        { id: 'status', status: 'passed', detail: 'answered 200' },
        { id: 'key', status: 'failed', detail: 'key is only whitespace (3 characters)' },
      ]),
    });
    expect(step6(e).reason).toBe(
      "check key failed: key is only whitespace (3 characters) (the forward target's answer)",
    );
  });

  it('a forward callback stored before the judge (`time` among its verdicts) still fails the step', () => {
    const e = stored({
      failed_check: null,
      data: { verdict: { detail: null } },
      forward: forward([
        { id: 'status', status: 'passed', detail: '200' },
        { id: 'time', status: 'failed', detail: 'answered in 1300 ms: over the 1 s budget' },
      ]),
    });
    expect(callbackFact(e, e)).toMatchObject({ forward_ok: false });
    expect(step6(e)).toMatchObject({
      state: 'failed',
      reason: 'the forward target failed time: answered in 1300 ms: over the 1 s budget',
    });
  });

  it('a callback whose token and answer passed is done', () => {
    const e = stored({ data: { verdict: { detail: null, answer: 1 } } });
    expect(step6(e).state).toBe('done');
  });
});
