/**
 * Issue 12 end to end, in browser mode as a newcomer meets it: `dets-console serve` on a profile
 * whose database has a damaged page. The header says "database damaged"; its dialog gives the
 * recovery command for this profile and a "Recover at next start" button. Pressed, then serve
 * stopped and started again on the same profile: the recovery runs before serve is ready, the
 * page hears how it went, and the header no longer says the database is damaged.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../electron/core/event-hub';
import { openEventStore } from '../../electron/core/store';
import { leavesOf, notification, overwritePage } from '../core/store/helpers';
import { ConsolePageModel } from './pages/console-page';
import { launchPage } from './support/browser';
import { callApi, startServe, type ServeProcess } from './support/serve';

let dataDir: string;
let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
const problems: string[] = [];
const N = 2000;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dets-e2e-recovery-'));
  const store = await openEventStore({ dataDir, events: new EventHub(), log: () => undefined });
  for (let k = 0; k < N; k += 100)
    await Promise.all(
      Array.from({ length: 100 }, (_, j) =>
        store.append(notification({ transaction_id: `tx-${k + j}` }), { durable: true }),
      ),
    );
  await store.close();
  // One leaf page of the events table overwritten, as a disk fault would.
  const leaves = leavesOf(join(dataDir, 'console.db'), 'events');
  overwritePage(join(dataDir, 'console.db'), leaves[Math.floor(leaves.length / 2)]!);

  ({ browser, page } = await launchPage(problems));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

describe('a damaged profile database, from the browser page', () => {
  it('shows the damage, asks for a recovery at the next start, and is sound after serve restarts', async () => {
    serve = await startServe([], 30_000, { dataDir });
    const ui = new ConsolePageModel(page);
    await ui.openConsole(serve.ready.ui);
    const pill = ui.byTestId('store-health-pill');
    await pill.waitFor();
    expect(await pill.textContent()).toContain('database damaged');
    await pill.click();
    const dialog = ui.byTestId('store-health-dialog');
    await dialog.waitFor();
    expect(await ui.byTestId('store-health-command').textContent()).toBe(
      `dets-console store recover --data-dir ${dataDir}`,
    );
    await ui.byTestId('store-recover-request').click();
    expect(await ui.byTestId('store-recover-requested').textContent()).toContain('Stop serve (Ctrl-C)');
    expect(fs.existsSync(join(dataDir, 'recover-requested.json'))).toBe(true);

    // The page leaves first: it would try to reconnect to the stopped serve.
    await page.goto('about:blank');
    expect(await serve.stop()).toBe(0);
    serve = await startServe([], 120_000, { dataDir });
    expect(serve.stderr()).toMatch(/event store: Recovered \d+ events/);
    expect(fs.readdirSync(dataDir).some((f) => /^console\.db\.damaged-[^.]*Z$/.test(f))).toBe(true);

    await ui.openConsole(serve.ready.ui);
    // The page hears how it went (rows were lost with the page: a warning), once.
    const notice = ui.byTestId('last-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/Recovery at start: Recovered \d+ events/);
    const health = (await callApi(serve, 'events.health')) as { state: string };
    expect(health.state).toBe('ok');
    expect(await ui.byTestId('store-health-pill').count()).toBe(0);
    const page1 = (await callApi(serve, 'events.query', { limit: 1 })) as { total: number };
    expect(page1.total).toBeGreaterThan(N / 2); // one page of small rows lost
    expect(page1.total).toBeLessThan(N);
    expect(problems).toEqual([]);
  });
});
