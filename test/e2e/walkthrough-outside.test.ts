/**
 * Issue 13 item 4 end to end: a walkthrough nothing outside can knock red. `dets-console serve`
 * on a fresh profile, the built renderer in headless Chromium, page modules. The walkthrough is
 * completed by clicking, the next step's button the only primary one and taking the focus as
 * each step turns green; step 3 offers its copies; a spec citation opens the in-app reference;
 * after the rotation step 1's "Last run" names the new active key. Then traffic that is not the
 * walkthrough's (malformed notifications POSTed from outside, a bare callback, a bad sign-in on
 * the Sandbox page) shows beside the steps, every step stays green, and the evidence pack holds
 * 8 of 8. Step 7's retry rehearsal, clicked on the page, proves the repeat was answered 200.
 */
import { describe, expect, it } from 'vitest';
import { WALKTHROUGH_STEP_IDS } from '../../electron/contract/schemas/walkthrough';
import { SandboxPageModel } from './pages/sandbox-page';
import { WalkthroughPageModel, type WalkthroughStepId } from './pages/walkthrough-page';
import { useServeAndBrowser } from './support/session';

const session = useServeAndBrowser();
/** The page module, made once the session has started. */
const wt = (() => {
  let model: WalkthroughPageModel | undefined;
  return () => (model ??= new WalkthroughPageModel(session().page));
})();
const api = (method: string, input?: unknown) => session().api(method, input);
const ORDER: readonly WalkthroughStepId[] = WALKTHROUGH_STEP_IDS;

describe('a walkthrough nothing outside can knock red', () => {
  it('is completed by clicking the one primary button, the next step taking the focus each time', async () => {
    await wt().open(session().serve.ready.ui);
    expect(await wt().blockedReason('authenticate')).toMatch(/Needs step 2 first/);
    for (const [i, id] of ORDER.entries()) {
      expect(await wt().isNext(id), `${id} is the next step`).toBe(true);
      const result = await wt().run(id);
      expect(result.ok, `${id}: ${result.message}`).toBe(true);
      await wt().waitForState(id, 'done');
      const next = ORDER[i + 1];
      if (next) await wt().waitForFocus(next);
    }
    expect(await wt().progress()).toBe(8);
  });

  it('offers Copy token, Copy header and Copy as curl on step 3, and opens spec citations in the reference', async () => {
    const token = wt().byTestId('step-token', wt().step('compose'));
    for (const id of ['copy-token', 'copy-cx', 'copy-curl']) await wt().byTestId(id, token).waitFor();
    expect(await wt().citationHrefs('compose')).toEqual(['#/reference/4.4', '#/reference/2.4']);
    await wt().step('compose').locator('[data-testid="spec-citation"] a').first().click();
    await session().page.locator('[data-testid="reference-page"][data-section="4.4"]').waitFor();
    expect(await wt().byTestId('reference-section-4.4').textContent()).toMatch(/Registration flow/);
    await session().page.goBack();
    await wt().root.waitFor();
  });

  it('after the rotation, step 1 names the new active key', async () => {
    const state = (await api('walkthrough.state')) as { environment: { active_kid: string } };
    expect(await wt().summary('key')).toContain(state.environment.active_kid);
    // The first key's "Last run" line (it created the old key) says what is true now.
    const last = await wt().lastRun('key');
    expect(last.moved).toBe(true);
    expect(last.text).toContain(`now: kid "${state.environment.active_kid}"`);
  });

  it('stays green through malformed notifications, a bare callback and a bad sign-in from outside; the pack holds 8 of 8', async () => {
    const bank = session().serve.ready.bank!;
    for (const route of ['pay-in', 'pay-out', 'transfer']) {
      for (const body of ['{not json', '{"transaction_id": "not-a-uuid"}']) {
        const res = await fetch(`${bank}/api/svc/notify/${route}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
        });
        expect(res.status).toBe(400);
        await res.arrayBuffer();
      }
    }
    const bare = await fetch(`${bank}/user_auth`);
    expect(bare.status).toBe(401);
    await bare.arrayBuffer();

    const state = (await api('walkthrough.state')) as { environment: { counterparty_guid: string } };
    const sandbox = new SandboxPageModel(session().page);
    await sandbox.open(session().serve.ready.ui);
    await sandbox.openCounterparty(state.environment.counterparty_guid);
    expect(await sandbox.runSignIn(state.environment.counterparty_guid, 'not.a.jwt')).toBe(false);

    // The bank records callbacks just after answering: wait for the bare one (bounded).
    for (let i = 0; i < 100; i++) {
      const found = (await api('events.query', { kind: 'callback', failed: true, limit: 1 })) as {
        total: number;
      };
      if (found.total >= 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    await wt().open(session().serve.ready.ui);
    expect(Object.values(await wt().states())).toEqual(Array(8).fill('done'));
    expect(await wt().progress()).toBe(8);
    // The other traffic is shown beside the steps it did not decide.
    expect(await wt().fact('notifications', 'other traffic')).toMatch(/^6 other notification/);
    expect(await wt().fact('sign-in', 'other traffic')).toMatch(/other sandbox trace/);

    const { text } = await wt().exportPack();
    const pack = JSON.parse(text) as { steps: Array<{ state: string }>; markdown: string };
    expect(pack.steps.map((s) => s.state)).toEqual(Array(8).fill('done'));
    expect(pack.markdown).toMatch(/8 of 8 steps done/);
  });

  it('rehearses the service’s retry on step 7: the repeat answered 200, shown on the step and in the pack (issue 27 item 5)', async () => {
    const answered = session().page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/call/walkthrough.run',
      { timeout: 60_000 },
    );
    await wt().byTestId('wt-rehearse', wt().step('notifications')).click();
    await answered;
    const result = wt().byTestId('wt-rehearsal-result', wt().step('notifications'));
    await result.waitFor();
    expect(await result.getAttribute('data-ok'), (await result.textContent()) ?? '').toBe('true');
    expect(await result.textContent()).toMatch(/stored it as repeat after one accepted/);
    expect(await wt().state('notifications')).toBe('done');
    expect(await wt().fact('notifications', 'retry rehearsal')).toMatch(/^passed: /);
    const { text } = await wt().exportPack();
    const pack = JSON.parse(text) as { retry_rehearsal: { ok: boolean; delivery_id: string } | null };
    expect(pack.retry_rehearsal).toMatchObject({ ok: true });
    const delivery = (await api('sandbox.delivery', { delivery_id: pack.retry_rehearsal!.delivery_id })) as {
      state: string;
      attempts: Array<{ status: number | null; copy?: boolean }>;
    };
    expect(delivery.state).toBe('delivered');
    expect(delivery.attempts.filter((a) => !a.copy).map((a) => a.status)).toEqual([null, 200]);
  });

  it('raised no page errors', () => {
    expect(session().problems).toEqual([]);
  });
});
