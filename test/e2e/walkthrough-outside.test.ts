/**
 * Issue 13 item 4 end to end: a walkthrough nothing outside can knock red. `dets-console serve`
 * on a fresh profile, the built renderer in headless Chromium, page modules. The walkthrough is
 * completed by clicking, the next step's button the only primary one and taking the focus as
 * each step turns green; step 3 offers its copies; a spec citation opens the in-app reference;
 * after the rotation step 1's "Last run" names the new active key. Then traffic that is not the
 * walkthrough's (malformed notifications POSTed from outside, a bare callback, a bad sign-in on
 * the Sandbox page) shows beside the steps, every step stays green, and the evidence pack holds
 * 8 of 8.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPageModel } from './pages/sandbox-page';
import { WalkthroughPageModel, type WalkthroughStepId } from './pages/walkthrough-page';
import { collectPageProblems, launchChromium } from './support/browser';
import { callApi, startServe, type ServeProcess } from './support/serve';

let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let walkthrough: WalkthroughPageModel;
const pageProblems: string[] = [];

beforeAll(async () => {
  serve = await startServe();
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  collectPageProblems(page, pageProblems);
  walkthrough = new WalkthroughPageModel(page);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  const code = await serve?.stop();
  if (serve) expect(code, `serve exit code; stderr:\n${serve.stderr()}`).toBe(0);
}, 30_000);

const api = (method: string, input?: unknown) => callApi(serve!, method, input);
const ORDER: WalkthroughStepId[] = [
  'key',
  'register',
  'compose',
  'authenticate',
  'callbacks',
  'sign-in',
  'notifications',
  'rotate',
];

describe('a walkthrough nothing outside can knock red', () => {
  it('is completed by clicking the one primary button, the next step taking the focus each time', async () => {
    await walkthrough.open(serve!.ready.ui);
    expect(await walkthrough.blockedReason('authenticate')).toMatch(/Needs step 2 first/);
    for (const [i, id] of ORDER.entries()) {
      expect(await walkthrough.isNext(id), `${id} is the next step`).toBe(true);
      const result = await walkthrough.run(id);
      expect(result.ok, `${id}: ${result.message}`).toBe(true);
      await walkthrough.waitForState(id, 'done');
      const next = ORDER[i + 1];
      if (next) await walkthrough.waitForFocus(next);
    }
    expect(await walkthrough.progress()).toBe(8);
  });

  it('offers Copy token, Copy header and Copy as curl on step 3, and opens spec citations in the reference', async () => {
    const token = walkthrough.byTestId('step-token', walkthrough.step('compose'));
    for (const id of ['copy-token', 'copy-cx', 'copy-curl']) await walkthrough.byTestId(id, token).waitFor();
    expect(await walkthrough.citationHrefs('compose')).toEqual(['#/reference/4.4', '#/reference/2.4']);
    await walkthrough.step('compose').locator('[data-testid="spec-citation"] a').first().click();
    await page.locator('[data-testid="reference-page"][data-section="4.4"]').waitFor();
    expect(await walkthrough.byTestId('reference-section-4.4').textContent()).toMatch(/Registration flow/);
    await page.goBack();
    await walkthrough.root.waitFor();
  });

  it('after the rotation, step 1 names the new active key', async () => {
    const state = (await api('walkthrough.state')) as { environment: { active_kid: string } };
    expect(await walkthrough.summary('key')).toContain(state.environment.active_kid);
    // The first key's "Last run" line (it created the old key) says what is true now.
    const last = await walkthrough.lastRun('key');
    expect(last.moved).toBe(true);
    expect(last.text).toContain(`now: kid "${state.environment.active_kid}"`);
  });

  it('stays green through malformed notifications, a bare callback and a bad sign-in from outside; the pack holds 8 of 8', async () => {
    const bank = serve!.ready.bank!;
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
    const sandbox = new SandboxPageModel(page);
    await sandbox.open(serve!.ready.ui);
    await sandbox.openCounterparty(state.environment.counterparty_guid);
    expect(await sandbox.runSignIn(state.environment.counterparty_guid, 'not.a.jwt')).toBe(false);

    // The bank records callbacks just after answering: wait for the bare one (bounded).
    for (let i = 0; i < 100; i++) {
      const page = (await api('events.query', { kind: 'callback', failed: true, limit: 1 })) as {
        total: number;
      };
      if (page.total >= 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    await walkthrough.open(serve!.ready.ui);
    expect(Object.values(await walkthrough.states())).toEqual(Array(8).fill('done'));
    expect(await walkthrough.progress()).toBe(8);
    // The other traffic is shown beside the steps it did not decide.
    expect(await walkthrough.fact('notifications', 'other traffic')).toMatch(/^6 other notification/);
    expect(await walkthrough.fact('sign-in', 'other traffic')).toMatch(/other sandbox trace/);

    const { text } = await walkthrough.exportPack();
    const pack = JSON.parse(text) as { steps: Array<{ state: string }>; markdown: string };
    expect(pack.steps.map((s) => s.state)).toEqual(Array(8).fill('done'));
    expect(pack.markdown).toMatch(/8 of 8 steps done/);
  });

  it('raised no page errors', () => {
    expect(pageProblems).toEqual([]);
  });
});
