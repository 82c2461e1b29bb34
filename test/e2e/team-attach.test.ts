/**
 * Issue 30 end to end: a team hub (`serve --team`), an operator's laptop attached to it
 * (`attach HUB_URL --token`), the attached page in headless Chromium. The header names the hub
 * and the member's role; every page hides what the role may not do (issue 30 item 1): an operator
 * sees no key or environment action but the Bank page's customers and the walkthrough's steps; a
 * viewer sees none of those; a notification the service sends to the hub shows up live.
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
let viewerAttach: SpawnedCli;
let viewerUi = '';
let browser: Browser | undefined;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  const dir = cli.dataDir('hub');
  const token = await addMember(['--data-dir', dir], 'olga@bank.example', 'operator');
  const viewerToken = await addMember(['--data-dir', dir], 'vic@bank.example', 'viewer');
  hub = cli.spawn(hubArgs(['--data-dir', dir]));
  hubReady = await hub.ready;
  const hubUrl = new URL('/', String(hubReady.ui)).href;
  attach = cli.spawn(['attach', hubUrl, '--token', token, '--json']);
  viewerAttach = cli.spawn(['attach', hubUrl, '--token', viewerToken, '--json']);
  attachUi = String((await attach.ready).ui);
  viewerUi = String((await viewerAttach.ready).ui);
  browser = await launchChromium();
  page = await browser.newPage();
  collectPageProblems(page, problems);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await attach?.stop();
  await viewerAttach?.stop();
  await hub?.stop();
});

describe('an attached page', () => {
  it('names the hub and the role, hides what each role may not do on every page, and shows the hub’s events live', async () => {
    const keys = new KeysPageModel(page);
    await keys.openConsole(attachUi);
    await expect
      .poll(() => keys.byTestId('team-badge').textContent(), { timeout: 15_000 })
      .toBe('Hub 127.0.0.1 · olga@bank.example (operator)');
    await keys.open();
    expect(await page.locator('[data-testid="keys-generate"]').count()).toBe(0);
    expect(await page.locator('[data-testid="keys-import"]').count()).toBe(0);
    await keys.goTo('environments', 'environments-page');
    await keys.byTestId('env-table').waitFor();
    expect(await keys.byTestId('env-add').count()).toBe(0);
    expect(await keys.byTestId('env-edit').count()).toBe(0);
    await keys.goTo('bank', 'bank-page');
    await keys.byTestId('customer-add').waitFor();
    await keys.goTo('walkthrough', 'walkthrough-page');
    await keys.byTestId('step-action-key').waitFor();

    const notifications = new NotificationsPageModel(page);
    await notifications.open();
    const tx = crypto.randomUUID();
    const sent = await fetch(`${String(hubReady.bank)}/api/svc/notify/pay-in`, {
      method: 'POST',
      body: JSON.stringify({ transaction_id: tx }),
    });
    expect(sent.status).toBe(200);
    await notifications.row(tx).waitFor();

    // A viewer's page (the processes live for one test: spawn-cli stops them after each).
    const viewer = new KeysPageModel(page);
    await viewer.openConsole(viewerUi);
    await expect
      .poll(() => viewer.byTestId('team-badge').textContent(), { timeout: 15_000 })
      .toBe('Hub 127.0.0.1 · vic@bank.example (viewer)');
    await viewer.goTo('walkthrough', 'walkthrough-page');
    await viewer.byTestId('walkthrough-steps').waitFor();
    expect(await page.locator('[data-testid^="step-action-"]').count()).toBe(0);
    expect(await viewer.byTestId('walkthrough-reset').count()).toBe(0);
    await viewer.goTo('bank', 'bank-page');
    await viewer.byTestId('bank-customers').waitFor();
    for (const id of ['customer-add', 'customers-import', 'behaviours-apply', 'forward-on'])
      expect(await viewer.byTestId(id).count(), id).toBe(0);
    await viewer.goTo('conformance', 'conformance-page');
    expect(await viewer.byTestId('conformance-run').count()).toBe(0);
    expect(problems).toEqual([]);
  }, 120_000);

  it('attaches a laptop’s own console to the hub from its start page, and detaches (issue 30 item 2)', async () => {
    const dir = cli.dataDir('hub2');
    const token = await addMember(['--data-dir', dir], 'olga@bank.example', 'operator');
    const hub2 = cli.spawn(hubArgs(['--data-dir', dir]));
    const hub2Ready = await hub2.ready;
    const laptop = cli.spawn(hubArgs(['--data-dir', cli.dataDir('laptop')]).filter((a) => a !== '--team'));
    const local = new KeysPageModel(page);
    await local.openConsole(String((await laptop.ready).ui));
    // What the previous test's page said as spawn-cli killed its hub and attach processes.
    problems.length = 0;
    await local.goTo('walkthrough', 'walkthrough-page');
    await local.byTestId('team-attach-open').click();
    await local.byTestId('team-hub-url').fill(new URL('/', String(hub2Ready.ui)).href);
    await local.byTestId('team-token').fill(token);
    await local.byTestId('team-attach-connect').click();
    await expect
      .poll(() => local.byTestId('team-badge').textContent(), { timeout: 15_000 })
      .toBe('Hub 127.0.0.1 · olga@bank.example (operator)');
    await expect.poll(() => local.byTestId('team-link').textContent(), { timeout: 15_000 }).toBe('Live.');
    // Item 3: the page holds the token nowhere once it is sent.
    expect((await page.content()).includes(token)).toBe(false);
    expect(JSON.stringify(await page.evaluate(() => ({ ...localStorage, ...sessionStorage })))).not.toContain(
      token,
    );
    await local.goTo('keys', 'keys-page');
    expect(await local.byTestId('keys-generate').count()).toBe(0);
    await local.goTo('walkthrough', 'walkthrough-page');
    await local.byTestId('team-detach').click();
    await local.byTestId('team-attach-open').waitFor();
    await expect.poll(() => local.byTestId('team-badge').count(), { timeout: 15_000 }).toBe(0);
    expect(problems).toEqual([]);
    await laptop.stop();
    await hub2.stop();
  }, 120_000);
});
