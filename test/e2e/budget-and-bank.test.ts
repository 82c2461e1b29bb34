/**
 * Issue 13 items 2 and 3 end to end (`dets-console serve` on a fresh profile, the built renderer
 * in headless Chromium, page modules): the Bank page keeps showing the listener and its URLs
 * through "Apply behaviours" (its state comes from the core, bank.changed included), and a
 * callback answered over the 1 s budget (a 1.5 s delay behaviour) is failed `budget` in the
 * walkthrough, on the Callbacks page, under its "Failed only" filter and its grouping, and in
 * the sandbox's trace: one verdict on every page; and (issue 24) a behaviour leaving phone out of
 * the answer fails `phone` on the same pages, the one answer judge judging the console's own answer.
 */
import { describe, expect, it } from 'vitest';
import type { Trace } from '../../electron/contract/schemas/sandbox';
import { BankPageModel } from './pages/bank-page';
import { CallbacksPageModel } from './pages/callbacks-page';
import { WalkthroughPageModel } from './pages/walkthrough-page';
import { useServeAndBrowser } from './support/session';

const session = useServeAndBrowser();
const api = (method: string, input?: unknown) => session().api(method, input);

describe('state from the core and one verdict per callback', () => {
  it('the Bank page still shows the listener and its URLs after "Apply behaviours"', async () => {
    const bank = new BankPageModel(session().page);
    await bank.openConsole(session().serve.ready.ui);
    await bank.open();
    expect(await bank.listenerUrl()).toBe(session().serve.ready.bank);
    const urls = await bank.endpointUrls();
    expect(urls).toHaveLength(6);
    expect(urls.every((u) => u.startsWith(session().serve.ready.bank!))).toBe(true);

    await bank.applyDelay('user_auth', 1500);
    // The status the live bank.changed carried replaced the page's: the listener is still there.
    expect(await bank.saysNotRunning()).toBe(false);
    expect(await bank.listenerUrl()).toBe(session().serve.ready.bank);
    expect(await bank.endpointUrls()).toEqual(urls);
  });

  it('a sign-in answered in 1.5 s fails `budget` in the walkthrough, the Callbacks page, its filter and the trace', async () => {
    // The steps before the sign-in, as a script would run them (the walkthrough test clicks them).
    for (const step of ['key', 'register', 'compose', 'authenticate', 'callbacks']) {
      const r = (await api('walkthrough.run', { step })) as { ok: boolean; message: string };
      expect(r.ok, `${step}: ${r.message}`).toBe(true);
    }
    const walkthrough = new WalkthroughPageModel(session().page);
    await walkthrough.goTo('walkthrough', 'walkthrough-page');
    await walkthrough.waitForState('callbacks', 'done');
    expect(await walkthrough.isNext('sign-in')).toBe(true);
    const result = await walkthrough.run('sign-in');
    expect(result.ok).toBe(false);
    await walkthrough.waitForState('sign-in', 'failed');
    expect(await walkthrough.reason('sign-in')).toMatch(/answered in [\d,]+ ms: over the 1 s budget/);
    expect(await walkthrough.fix('sign-in')).toMatch(/Answer within 1 second/);

    const callbacks = new CallbacksPageModel(session().page);
    await callbacks.open();
    const [id] = await callbacks.ids();
    expect(id).toBeDefined();
    expect(await callbacks.row(id!).getAttribute('data-failed-check')).toBe('budget');
    await callbacks.setFailedOnly(true);
    expect(await callbacks.ids()).toContain(id);
    await callbacks.setFailedOnly(false);
    expect(await callbacks.groups()).toContainEqual(['budget', 1]);
    await callbacks.openDetail(id!);
    expect(await callbacks.detailChecks()).toContainEqual(['budget', 'failed']);
    // Re-check: the token passes today, the recorded verdict stays `budget`, both shown.
    expect(await callbacks.recheckVerdicts()).toEqual({ then: 'budget', now: 'passed' });
    expect(await callbacks.row(id!).getAttribute('data-failed-check')).toBe('budget');
    expect(await callbacks.detailChecks()).toContainEqual(['budget', 'failed']);

    // The sandbox's trace of the same sign-in: its budget step failed, in the same words.
    const traces = (await api('sandbox.traces', {})) as Trace[];
    const budget = traces.find((t) => t.kind === 'sign-in')?.steps.find((s) => s.id === 'budget');
    expect(budget).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/over the 1 s budget/),
    });
  });

  it('the behaviour "omit phone": answered 200, and failed `phone` on the Callbacks page, in events, the walkthrough and the trace', async () => {
    await api('bank.setBehaviours', { user_auth: { omit_field: 'phone' } });
    const callbacks = new CallbacksPageModel(session().page);
    await callbacks.open();
    const known = await callbacks.ids();
    const walkthrough = new WalkthroughPageModel(session().page);
    await walkthrough.goTo('walkthrough', 'walkthrough-page');
    expect((await walkthrough.run('sign-in')).ok).toBe(false);
    await walkthrough.waitForState('sign-in', 'failed');
    expect(await walkthrough.summary('sign-in')).toMatch(/stopped at phone/);
    expect(await walkthrough.reason('sign-in')).toMatch(/phone missing$/);
    expect(await walkthrough.fix('sign-in')).toMatch(/omit-phone behaviour/);

    await callbacks.open();
    const id = await callbacks.waitForNew(known);
    const row = callbacks.row(id);
    expect(await row.getAttribute('data-failed-check')).toBe('phone');
    expect(await row.getByTestId('callback-outcome').textContent()).not.toMatch(/passed/);
    await callbacks.openDetail(id);
    expect(await callbacks.detailChecks()).toContainEqual(['phone', 'failed']);
    const stored = (await api('events.get', { id })) as { status: number; failed_check: string };
    // The answer is what the behaviour says (200 without phone); the verdict is the judge's.
    expect(stored).toMatchObject({ status: 200, failed_check: 'phone' });

    const traces = (await api('sandbox.traces', {})) as Trace[];
    expect(traces.find((t) => t.kind === 'sign-in')).toMatchObject({ ok: false, failed: 'phone' });
    await api('bank.setBehaviours', {});
  });

  it('raised no page errors', () => {
    expect(session().problems).toEqual([]);
  });
});
