/**
 * Issue 13 item 1 end to end: `dets-console serve` on a fresh profile, the built renderer in
 * headless Chromium (fresh profile, clipboard allowed). A rejected notification opens in the
 * event detail by keyboard alone (j, Enter, no Tab first) and shows its reason and body; a
 * callback's "Copy as curl" gives a command that runs as is (Debian's curl through `sh -c`)
 * against the live bank listener and gets the same status.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallbacksPageModel } from './pages/callbacks-page';
import { NotificationsPageModel } from './pages/notifications-page';
import { collectPageProblems, launchChromium } from './support/browser';
import { callApi, startServe, type ServeProcess } from './support/serve';
import { createSigner, nowSeconds } from './support/tokens';

const run = promisify(execFile);
const OBJ = 'DE89370400440532013000';
const SUB = 'ops@bank.example';

let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
const problems: string[] = [];

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, text: await res.text() };
}

beforeAll(async () => {
  serve = await startServe();
  const { bank, sandbox } = serve.ready;
  if (!bank || !sandbox)
    throw new Error(`serve started no bank or no sandbox: ${JSON.stringify(serve.ready)}`);
  await callApi(serve, 'bank.saveCustomer', {
    obj: OBJ,
    sub: SUB,
    external_id: 'cust-1',
    phone: '+4915112345678',
    key: 'user-secret-key-1',
  });
  const signer = await createSigner('event-detail-key');
  const onboarded = await post(
    `${sandbox}/sandbox/v1/counterparties`,
    JSON.stringify({ jwk: signer.publicJwk, bank_auth_url: bank, bank_receiver_url: bank }),
  );
  expect(onboarded.status, onboarded.text).toBe(201);
  const guid = (JSON.parse(onboarded.text) as { counterparty_guid: string }).counterparty_guid;
  const iat = nowSeconds();
  const token = await signer.sign({ flow: 'sign-in', obj: OBJ, sub: SUB, iat, exp: iat + 300 });
  // The sandbox calls the bank's /user_auth with its own X-Session-ID: a passed callback.
  const signIn = await post(`${sandbox}/sandbox/v1/counterparties/${guid}/sign-in`, '{}', {
    'CX-Authorization': token,
  });
  expect(signIn.status, signIn.text).toBe(200);

  browser = await launchChromium();
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  page = await context.newPage();
  collectPageProblems(page, problems);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('event detail everywhere', () => {
  it('opens a rejected notification by keyboard and reads its reason and body', async () => {
    const body = '{"amount":"12.00","note":"no transaction id here"}';
    const sent = await post(`${serve!.ready.bank}/api/svc/notify/pay-out`, body);
    expect(sent.status).toBe(400);

    const notifications = new NotificationsPageModel(page);
    await notifications.openConsole(serve!.ready.ui);
    await notifications.open();
    await notifications.rows.first().waitFor();
    // The page has focus after the click on the nav; j then Enter, no Tab.
    const detail = await notifications.openWithKeys(1);
    expect(await detail.getAttribute('data-kind')).toBe('notification');
    expect(await detail.getAttribute('data-outcome')).toBe('failed');
    expect(await notifications.byTestId('event-reason', detail).textContent()).toMatch(/transaction_id/);
    expect(await notifications.byTestId('event-request', detail).textContent()).toContain(
      'no transaction id here',
    );
    expect(await notifications.byTestId('event-request-line', detail).textContent()).toBe(
      'POST /api/svc/notify/pay-out',
    );
  });

  it('copies a callback as curl, and the copied command gets the same answer from the live listener', async () => {
    const callbacks = new CallbacksPageModel(page);
    await callbacks.open();
    await callbacks.rows.first().waitFor();
    const [id] = await callbacks.ids();
    const detail = await callbacks.openDetail(id!);
    const status = Number(await detail.locator('[data-testid="event-detail"]').getAttribute('data-status'));
    const curl = await callbacks.copyAsCurl();
    expect(curl.startsWith(`curl -sS '${serve!.ready.bank}/user_auth`)).toBe(true);
    const { stdout } = await run('sh', ['-c', `${curl} -o /dev/null -w '%{http_code}'`], { timeout: 10_000 });
    expect(Number(stdout)).toBe(status);
    expect(status).toBe(200);
    expect(problems).toEqual([]);
  });
});
