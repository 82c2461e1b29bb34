/**
 * Many tabs without a cookie (issue 13 item 5, issue 24 item 9), in headless Chromium. The access
 * link is opened once; the page keeps the token in its origin's localStorage, so a second tab at
 * the bare origin (no token in its URL) works on its own: it loads data, its live stream
 * connects, and a notification posted to the bank listener shows up in it. A fresh profile that
 * never opened the link gets the access-link page; a token left from an older launch is refused,
 * forgotten and explained; two consoles on two ports side by side keep one token each.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY } from '../../renderer/api/access-token';
import { ConsolePageModel } from './pages/console-page';
import { NotificationsPageModel } from './pages/notifications-page';
import { collectPageProblems, launchChromium } from './support/browser';
import { postNotification, startServe, type ServeProcess } from './support/serve';

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

const originOf = (s: ServeProcess) => new URL(s.ready.ui).origin;
const tokenOf = (s: ServeProcess) => new URL(s.ready.ui).searchParams.get('token')!;
const storedToken = (page: Page) => page.evaluate((key) => localStorage.getItem(key), TOKEN_STORAGE_KEY);

/** The X-DETS-Token header of every /api request the context's pages send, by path. */
function recordApiTokens(context: BrowserContext): Array<{ path: string; token: string | undefined }> {
  const seen: Array<{ path: string; token: string | undefined }> = [];
  context.on('request', (req) => {
    const url = new URL(req.url());
    if (url.pathname.startsWith('/api/'))
      seen.push({ path: url.pathname, token: req.headers()['x-dets-token'] });
  });
  return seen;
}

describe('many tabs', () => {
  it('opens a second tab without the token after the first visit, and uses it', async () => {
    const context = await browser!.newContext();
    const problems: string[] = [];
    const sent = recordApiTokens(context);
    const first = new ConsolePageModel(await context.newPage());
    collectPageProblems(first.page, problems);
    await first.openConsole(serve!.ready.ui);
    expect(first.page.url()).not.toContain('token=');
    expect(await storedToken(first.page)).toBe(tokenOf(serve!));

    const origin = originOf(serve!);
    const second = new NotificationsPageModel(await context.newPage());
    collectPageProblems(second.page, problems);
    await second.openConsole(`${origin}/#/notifications`);
    await second.root.waitFor();
    expect(second.page.url()).toBe(`${origin}/#/notifications`);

    // Used: a notification the bank receives appears live in the second tab.
    const transactionId = await postNotification(serve!);
    await second.row(transactionId).waitFor();
    // And its own calls work: switching pages loads data with the stored token.
    await second.goTo('bank', 'bank-page');
    expect(await second.byTestId('bank-url').textContent()).toBe(serve!.ready.bank);

    // Every API request of both tabs, the event streams included, carried the token in the header.
    expect(sent.some((s) => s.path === '/api/events')).toBe(true);
    expect(sent.filter((s) => s.token !== tokenOf(serve!))).toEqual([]);
    expect(await context.cookies()).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows the access-link page to a profile that never opened the link, and calls nothing', async () => {
    const context = await browser!.newContext();
    const sent = recordApiTokens(context);
    const page = await context.newPage();
    const answer = await page.goto(originOf(serve!));
    expect(answer?.status()).toBe(200);
    const problem = page.locator('[data-testid="access-problem"]');
    await problem.waitFor();
    expect(await problem.getAttribute('data-reason')).toBe('missing');
    expect(await page.textContent('h1')).toContain('needs its access link');
    expect(sent).toEqual([]);
    await context.close();
  });

  it('forgets a token left by an older launch on its 401, explains, and comes back once the link is opened', async () => {
    const context = await browser!.newContext();
    const problems: string[] = [];
    const stale = new ConsolePageModel(await context.newPage());
    // A token this launch never issued, as an earlier `serve` on this port would have left it.
    await stale.page.goto(originOf(serve!));
    await stale.page.evaluate(
      (key) => localStorage.setItem(key, 'token-of-an-older-launch'),
      TOKEN_STORAGE_KEY,
    );
    await stale.page.reload();
    const problem = stale.byTestId('access-problem');
    await problem.waitFor();
    expect(await problem.getAttribute('data-reason')).toBe('rejected');
    expect(await problem.textContent()).toContain('refused');
    expect(await storedToken(stale.page)).toBeNull();
    // Reloaded, the tab no longer tries the refused token: it says the link is missing.
    await stale.page.reload();
    await problem.waitFor();
    expect(await problem.getAttribute('data-reason')).toBe('missing');

    // The access link opened in another tab brings this one back by itself.
    const fresh = new ConsolePageModel(await context.newPage());
    collectPageProblems(fresh.page, problems);
    await fresh.openConsole(serve!.ready.ui);
    collectPageProblems(stale.page, problems);
    await stale.page.locator('[data-testid="connection-status"][data-status="connected"]').waitFor();
    expect(await storedToken(stale.page)).toBe(tokenOf(serve!));
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps two consoles on two ports side by side, each with its own token and tabs', async () => {
    const other = await startServe();
    const context = await browser!.newContext();
    const problems: string[] = [];
    try {
      for (const s of [serve!, other]) {
        const first = new ConsolePageModel(await context.newPage());
        collectPageProblems(first.page, problems);
        await first.openConsole(s.ready.ui);
      }
      for (const s of [serve!, other]) {
        const second = new ConsolePageModel(await context.newPage());
        collectPageProblems(second.page, problems);
        await second.openConsole(`${originOf(s)}/#/bank`);
        await second.page.locator('[data-testid="bank-page"][data-state="ready"]').waitFor();
        expect(await second.byTestId('bank-url').textContent()).toBe(s.ready.bank);
        expect(await storedToken(second.page)).toBe(tokenOf(s));
      }
      expect(tokenOf(other)).not.toBe(tokenOf(serve!));
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      expect(await other.stop()).toBe(0);
    }
  }, 90_000);
});
