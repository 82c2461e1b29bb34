/**
 * Issue 27 end to end: a notification sent from the Sandbox page with duplicates to a bank whose
 * first answer is a 500, followed on the page until the ladder delivers it, then grouped on the
 * Notifications page with which copy was accepted and which were repeats.
 *
 * Real parts: `dets-console serve --time-scale 0.05` on a fresh data folder (the ladder's 1 s
 * first wait becomes 50 ms), the built renderer in headless Chromium, and the console's own bank
 * endpoints as the bank, reached through a small receiver on 127.0.0.1 that answers the very
 * first request 500 itself and passes every later one on to the bank unchanged. So the bank
 * stores the copies and the retry, and the Notifications page groups them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationsPageModel } from './pages/notifications-page';
import { SandboxPageModel } from './pages/sandbox-page';
import { launchChromium, collectPageProblems } from './support/browser';
import { ROOT } from './support/build';
import { callApi, startServe, type ServeProcess } from './support/serve';
import { createSigner } from './support/tokens';

const SHOTS = join(ROOT, 'test-results/e2e');

/** A bank that fails its first notification (500) and then is the console's own bank. */
async function firstAnswer500(bankUrl: string) {
  const seen: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (seen.length === 0) {
          seen.push(500);
          res.writeHead(500, { 'content-type': 'text/plain' }).end('down for a moment');
          return;
        }
        const passed = await fetch(`${bankUrl}${req.url ?? '/'}`, {
          method: req.method,
          headers: { 'content-type': String(req.headers['content-type'] ?? 'application/json') },
          body: Buffer.concat(chunks),
        });
        seen.push(passed.status);
        res.writeHead(passed.status).end(Buffer.from(await passed.arrayBuffer()));
      })().catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let receiver: Awaited<ReturnType<typeof firstAnswer500>> | undefined;
let page: Page;
let guid: string;
const pageProblems: string[] = [];

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  serve = await startServe(['--time-scale', '0.05']);
  if (!serve.ready.sandbox || !serve.ready.bank) throw new Error(`serve: ${JSON.stringify(serve.ready)}`);
  receiver = await firstAnswer500(serve.ready.bank);
  const signer = await createSigner('bank-key-ladder');
  const created = (await callApi(serve, 'sandbox.onboard', {
    jwk: signer.publicJwk,
    bank_receiver_url: receiver.url,
  })) as { counterparty_guid: string };
  guid = created.counterparty_guid;
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  page = await context.newPage();
  collectPageProblems(page, pageProblems);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  const code = await serve?.stop();
  if (serve) expect(code, `serve exit code; stderr:\n${serve.stderr()}`).toBe(0);
}, 30_000);

describe('a notification on the service’s ladder, in the browser (issue 27)', () => {
  let transactionId: string;

  it('sends it with two duplicates; the first answer is a 500, and the page follows it until delivered', async () => {
    const sandbox = new SandboxPageModel(page);
    await sandbox.open(serve!.ready.ui);
    await sandbox.openCounterparty(guid);
    const sent = await sandbox.sendWithFaults(guid, { duplicates: 2 });
    expect(sent.status).toBe('500');
    transactionId = sent.transactionId!;
    // Live: the delivery appears, then turns delivered once the ladder's second attempt is taken.
    await sandbox.waitForDelivery(transactionId, 'delivered');
    // The copies go 200 ms apart and may still be on their way when the retry is taken.
    const attempts = await sandbox.deliveryAttempts(transactionId, 4);
    // The ladder: attempt 1 answered 500, attempt 2 answered 200; the two copies of attempt 1 200.
    expect(attempts.filter(([, copy]) => copy === 'false')).toEqual([
      ['1', 'false', '500'],
      ['2', 'false', '200'],
    ]);
    expect(attempts.filter(([, copy]) => copy === 'true')).toEqual([
      ['1', 'true', '200'],
      ['1', 'true', '200'],
    ]);
    expect(
      await sandbox.delivery(transactionId).locator('[data-testid="delivery-progress"]').textContent(),
    ).toBe('delivered after 2 attempts (+ 2 copies)');
    // What the bank saw: the 500 it was made to answer, then three 200s (the copies and the retry).
    expect([...receiver!.seen].sort()).toEqual([200, 200, 200, 500]);
    await sandbox.screenshot(join(SHOTS, 'sandbox-delivery-ladder.png'));
  });

  it('groups the copies and the retry under the transaction_id on the Notifications page', async () => {
    const notifications = new NotificationsPageModel(page);
    await notifications.open();
    await notifications.search(transactionId);
    await notifications.setGrouped(true);
    const row = notifications.row(transactionId);
    await row.waitFor();
    expect(await row.getAttribute('data-count')).toBe('3');
    const outcomes = row.locator('[data-testid="notifications-group-outcomes"]');
    expect([
      await outcomes.getAttribute('data-accepted'),
      await outcomes.getAttribute('data-repeats'),
    ]).toEqual(['1', '2']);
    // Oldest first: the first copy to reach the bank was taken, the others were repeats, all 200.
    expect(await notifications.groupMembers(transactionId)).toEqual([
      ['accepted', '200'],
      ['repeat', '200'],
      ['repeat', '200'],
    ]);
    await notifications.screenshot(join(SHOTS, 'notifications-grouped.png'));
  });

  it('logged no page error, CSP violation or failed request', () => {
    expect(pageProblems).toEqual([]);
  });
});
