/**
 * Issue 30 end to end: a team hub (`serve --team`), an operator's laptop attached to it
 * (`attach HUB_URL --token`), the attached page in headless Chromium. The header names the hub
 * and the member's role; the Keys page hides what an operator may not do (generate, import: an
 * admin's); a notification the service sends to the hub shows up live on the attached page.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTestFile, type SpawnedCli } from '../cli/support/spawn-cli';
import { addMember, hubArgs } from '../cli/support/team';
import { KeysPageModel } from './pages/keys-page';
import { NotificationsPageModel } from './pages/notifications-page';
import { collectPageProblems, launchChromium } from './support/browser';

const cli = cliTestFile('dets-e2e-team-');
let hub: SpawnedCli;
let attach: SpawnedCli;
let hubReady: Record<string, unknown>;
let attachUi = '';
let browser: Browser | undefined;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  const dir = cli.dataDir('hub');
  const token = await addMember(['--data-dir', dir], 'olga@bank.example', 'operator');
  hub = cli.spawn(hubArgs(['--data-dir', dir]));
  hubReady = await hub.ready;
  attach = cli.spawn(['attach', new URL('/', String(hubReady.ui)).href, '--token', token, '--json']);
  attachUi = String((await attach.ready).ui);
  browser = await launchChromium();
  page = await browser.newPage();
  collectPageProblems(page, problems);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await attach?.stop();
  await hub?.stop();
});

describe('an attached page', () => {
  it('names the hub and the role, hides what the role may not do, and shows the hub’s events live', async () => {
    const keys = new KeysPageModel(page);
    await keys.openConsole(attachUi);
    await expect
      .poll(() => keys.byTestId('team-badge').textContent(), { timeout: 15_000 })
      .toBe('Hub 127.0.0.1 · olga@bank.example (operator)');
    await keys.open();
    expect(await page.locator('[data-testid="keys-generate"]').count()).toBe(0);
    expect(await page.locator('[data-testid="keys-import"]').count()).toBe(0);

    const notifications = new NotificationsPageModel(page);
    await notifications.open();
    const tx = crypto.randomUUID();
    const sent = await fetch(`${String(hubReady.bank)}/api/svc/notify/pay-in`, {
      method: 'POST',
      body: JSON.stringify({ transaction_id: tx }),
    });
    expect(sent.status).toBe(200);
    await notifications.row(tx).waitFor();
    expect(problems).toEqual([]);
  }, 120_000);
});
