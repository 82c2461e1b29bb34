/**
 * Issue 13 item 5, many tabs, in headless Chromium: the access link is opened once; a second tab
 * at the bare origin (no token in its URL) then works on its own: it loads, its live stream
 * connects, and a notification posted to the bank listener shows up in it. A fresh profile that
 * never opened the link is still refused.
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsolePageModel } from './pages/console-page';
import { NotificationsPageModel } from './pages/notifications-page';
import { collectPageProblems, launchChromium } from './support/browser';
import { startServe, type ServeProcess } from './support/serve';

let serve: ServeProcess | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  serve = await startServe();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('many tabs', () => {
  it('opens a second tab without the token after the first visit, and uses it', async () => {
    const context = await browser!.newContext();
    const problems: string[] = [];
    const first = new ConsolePageModel(await context.newPage());
    collectPageProblems(first.page, problems);
    await first.openConsole(serve!.ready.ui);
    expect(first.page.url()).not.toContain('token=');

    const origin = new URL(serve!.ready.ui).origin;
    const second = new NotificationsPageModel(await context.newPage());
    collectPageProblems(second.page, problems);
    await second.openConsole(`${origin}/#/notifications`);
    await second.root.waitFor();
    expect(second.page.url()).toBe(`${origin}/#/notifications`);

    // Used: a notification the bank receives appears live in the second tab.
    const transactionId = randomUUID();
    const posted = await fetch(`${serve!.ready.bank}/api/svc/notify/pay-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ transaction_id: transactionId }),
    });
    expect(posted.status).toBe(200);
    await second.row(transactionId).waitFor();
    // And its own calls work: switching pages loads data with the cookie alone.
    await second.goTo('bank', 'bank-page');
    expect(await second.byTestId('bank-url').textContent()).toBe(serve!.ready.bank);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('still refuses a profile that never opened the access link', async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const answer = await page.goto(new URL(serve!.ready.ui).origin);
    expect(answer?.status()).toBe(401);
    expect(await page.textContent('h1')).toContain('needs its access link');
    await context.close();
  });
});
