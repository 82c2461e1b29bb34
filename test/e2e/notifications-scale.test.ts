/**
 * The Notifications feed at scale, end to end: `dets-console serve` with 10,000 real notifications
 * posted to its bank endpoints (some repeats, some invalid bodies), the built renderer in headless
 * Chromium. The feed loads them all, keeps only a window of rows in the DOM, scrolls to the middle
 * and the end without errors, keeps the reader's place when a new one arrives, and groups repeats.
 * No timing assertions (the bench measures). Also screenshots of the three bank pages with data.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallbacksPageModel } from './pages/callbacks-page';
import { ConsolePageModel } from './pages/console-page';
import { NotificationsPageModel } from './pages/notifications-page';
import { launchChromium, collectPageProblems } from './support/browser';
import { ROOT } from './support/build';
import { startServe, type ServeProcess, callApi } from './support/serve';

const SHOTS = join(ROOT, 'test-results/e2e');
const COUNT = 10_000;
const REPEATED = 'aaaaaaaa-bbbb-4ccc-8ddd-000000000042';

let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let notifications: NotificationsPageModel;
const pageProblems: string[] = [];

const call = (method: string, input?: unknown) => callApi(serve!, method, input);

async function notify(route: string, body: string): Promise<number> {
  const res = await fetch(`${serve!.ready.bank}/api/svc/notify/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

/** `COUNT` notifications over 32 connections: every 50th repeats one id, every 97th is not JSON. */
async function seed(): Promise<void> {
  const routes = ['pay-in', 'pay-out', 'transfer'];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < COUNT; i = next++) {
      const body =
        i % 97 === 0
          ? 'not json'
          : JSON.stringify({ transaction_id: i % 50 === 0 ? REPEATED : randomUUID() });
      await notify(routes[i % 3]!, body);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  serve = await startServe();
  if (!serve.ready.bank) throw new Error(`serve started no bank: ${JSON.stringify(serve.ready)}`);
  await call('bank.saveCustomer', {
    obj: 'DE89370400440532013000',
    sub: 'ops@bank.example',
    external_id: 'cust-000042',
    phone: '+4915112345678',
    key: 'user-secret-key-42',
    first_name: 'Ana',
    last_name: 'Lovelace',
  });
  await seed();
  // A few callbacks that fail their checks (no token, a garbage token), for the Callbacks page.
  for (const [path, headers] of [
    ['/user_auth?obj=DE89370400440532013000', {}],
    ['/key?obj=DE89370400440532013000', { 'X-Session-ID': 'not.a.token' }],
    ['/external_id?obj=DE02120300000000202051', { 'X-Session-ID': 'eyJhbGciOiJub25lIn0.e30.' }],
  ] as const) {
    const res = await fetch(`${serve.ready.bank}${path}`, { headers });
    await res.arrayBuffer();
  }

  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  page = await context.newPage();
  collectPageProblems(page, pageProblems);
  notifications = new NotificationsPageModel(page);
  await notifications.openConsole(serve.ready.ui);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  const code = await serve?.stop();
  if (serve) expect(code, `serve exit code; stderr:\n${serve.stderr()}`).toBe(0);
}, 30_000);

describe('notifications at scale', () => {
  it('counts 10,000 notifications from the store, loads them page by page and renders only a window of rows', async () => {
    await notifications.open();
    await notifications.waitForTotal(COUNT);
    const first = (await notifications.counts()).loaded;
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(COUNT);
    await notifications.scrollUntilLoaded(COUNT);
    expect((await notifications.counts()).loaded).toBe(COUNT);
    await notifications.scrollTo(0);
    const inDom = await notifications.rows.count();
    expect(inDom).toBeGreaterThan(10);
    expect(inDom).toBeLessThan(200);
    await notifications.screenshot(join(SHOTS, 'notifications-scale.png'));
  });

  it('scrolls to the middle and the end without errors, rows following', async () => {
    const top = await notifications.visibleIds();
    await notifications.scrollTo(26 * 5_000);
    await page.waitForFunction(
      (first) =>
        document.querySelector('[data-testid="notifications-row"]')?.getAttribute('data-event-id') !== first,
      top[0],
    );
    const middle = await notifications.visibleIds();
    expect(middle).not.toContain(top[0]);
    await notifications.scrollTo(26 * COUNT);
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid="notifications-row"]')].some(
        (r) => r.getAttribute('aria-rowindex') === '10000',
      ),
    );
    expect(await notifications.rows.count()).toBeLessThan(200);
    expect(pageProblems).toEqual([]);
  });

  it('keeps the reader in place when a new notification arrives while scrolled down', async () => {
    await notifications.scrollTo(26 * 300);
    await page.waitForTimeout(100);
    const before = await notifications.scrollTop();
    const firstVisible = await page.evaluate(() => {
      const scroller = document.querySelector('[data-testid="notifications-scroller"]')!;
      const top = scroller.getBoundingClientRect().top;
      const rows = [...document.querySelectorAll('[data-testid="notifications-row"]')];
      return rows.find((r) => r.getBoundingClientRect().top >= top)!.getAttribute('data-event-id');
    });
    expect(await notify('pay-in', JSON.stringify({ transaction_id: randomUUID() }))).toBe(200);
    await notifications.waitForLoaded(COUNT + 1);
    await page.waitForFunction((b) => {
      const el = document.querySelector('[data-testid="notifications-scroller"]')!;
      return el.scrollTop > b;
    }, before);
    const stillFirst = await page.evaluate(() => {
      const scroller = document.querySelector('[data-testid="notifications-scroller"]')!;
      const top = scroller.getBoundingClientRect().top;
      const rows = [...document.querySelectorAll('[data-testid="notifications-row"]')];
      return rows.find((r) => r.getBoundingClientRect().top >= top)!.getAttribute('data-event-id');
    });
    expect(stillFirst).toBe(firstVisible);
  });

  it('groups repeats by transaction_id and filters rejected bodies', async () => {
    await notifications.scrollTo(0);
    await notifications.search(REPEATED);
    await notifications.setGrouped(true);
    const row = notifications.row(REPEATED);
    await row.waitFor();
    // Every 50th id repeats, unless that one is also a 97th (not JSON).
    const repeats = Array.from({ length: COUNT }, (_, i) => i).filter((i) => i % 50 === 0 && i % 97 !== 0);
    expect(await row.getAttribute('data-count')).toBe(String(repeats.length));
    await notifications.setGrouped(false);
    await notifications.search('');
    await notifications.filterOutcome('rejected');
    await page.waitForFunction(
      (n) =>
        Number(document.querySelector('[data-testid="notifications-count"]')?.getAttribute('data-rows')) ===
        n,
      Math.ceil(COUNT / 97),
    );
    await notifications.screenshot(join(SHOTS, 'notifications-rejected.png'));
    await notifications.filterOutcome(null);
    expect(pageProblems).toEqual([]);
  });

  it('screenshots the Callbacks and Bank pages with data', async () => {
    const callbacks = new CallbacksPageModel(page);
    await callbacks.open();
    const ids = await callbacks.ids();
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect((await callbacks.failedChecks()).every((c) => c !== '')).toBe(true);
    await callbacks.screenshot(join(SHOTS, 'callbacks-list.png'));
    await callbacks.openDetail(ids[0]!);
    expect((await callbacks.detailChecks()).some(([, s]) => s === 'failed')).toBe(true);
    await callbacks.screenshot(join(SHOTS, 'callbacks-detail.png'));

    await call('bank.setBehaviours', { user_auth: { delay_ms: 1500 } });
    const bank = new ConsolePageModel(page);
    await bank.goTo('bank', 'bank-page');
    await bank.byTestId('behaviours-banner').waitFor();
    await bank.byTestId('behaviours-pill').waitFor();
    await bank.screenshot(join(SHOTS, 'bank-page.png'));
    expect(await page.content()).not.toContain('user-secret-key-42');
    expect(pageProblems).toEqual([]);
  });
});
