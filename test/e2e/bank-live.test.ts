/**
 * Issue 5 end to end: `dets-console serve` with its bank endpoints and its sandbox on a fresh
 * profile, the built renderer in headless Chromium. The sandbox plays the service against the
 * console's own bank endpoints: a pay-in it sends shows up live on the Notifications page, a
 * sign-in it runs shows the /user_auth callback live on the Callbacks page as passed, and a
 * callback for a customer the bank does not know names its failed check in the detail panel.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BankLivePages } from './pages/bank-live-pages';
import { launchChromium, collectPageProblems } from './support/browser';
import { ROOT } from './support/build';
import { startServe, type ServeProcess, callApi } from './support/serve';
import { createSigner, nowSeconds, type TestSigner } from './support/tokens';

const SHOTS = join(ROOT, 'test-results/e2e');
const OBJ = 'DE89370400440532013000';
const SUB = 'ops@bank.example';
const UNKNOWN_OBJ = 'DE02120300000000202051';

let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let ui: BankLivePages;
let signer: TestSigner;
let guid: string;
const pageProblems: string[] = [];

const call = (method: string, input?: unknown) => callApi(serve!, method, input);

async function sandboxPost(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${serve!.ready.sandbox}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function bankJwt(obj: string): Promise<string> {
  const iat = nowSeconds();
  return signer.sign({ flow: 'sign-in', obj, sub: SUB, iat, exp: iat + 300 });
}

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  signer = await createSigner('bank-live-key-1');
  serve = await startServe();
  const { bank, sandbox } = serve.ready;
  if (!bank || !sandbox)
    throw new Error(`serve started no bank or no sandbox: ${JSON.stringify(serve.ready)}`);

  // A customer in the bank's directory, and the bank onboarded to the sandbox with its key and
  // the console's bank endpoints as its auth and receiver URLs.
  await call('bank.saveCustomer', {
    obj: OBJ,
    sub: SUB,
    external_id: 'cust-000042',
    phone: '+4915112345678',
    key: 'user-secret-key-42',
    first_name: 'Ana',
    last_name: 'Lovelace',
  });
  const onboarded = await sandboxPost('/sandbox/v1/counterparties', {
    jwk: signer.publicJwk,
    bank_auth_url: bank,
    bank_receiver_url: bank,
    bank_sender_url: bank,
  });
  expect(onboarded.status, JSON.stringify(onboarded.body)).toBe(201);
  guid = String(onboarded.body.counterparty_guid);

  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  page = await context.newPage();
  collectPageProblems(page, pageProblems);
  ui = new BankLivePages(page);
  await ui.openConsole(serve.ready.ui);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  const code = await serve?.stop();
  if (serve) expect(code, `serve exit code; stderr:\n${serve.stderr()}`).toBe(0);
}, 30_000);

describe('bank endpoints, live in the console', () => {
  it('shows a pay-in the sandbox sends on the Notifications page, without a reload', async () => {
    await ui.openNotifications();
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));

    const sent = await sandboxPost(`/sandbox/v1/counterparties/${guid}/notify`, { event: 'pay-in' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body).toMatchObject({ status: 200, url: `${serve!.ready.bank}/api/svc/notify/pay-in` });
    const transactionId = String(sent.body.transaction_id);

    const row = ui.notificationRow(transactionId);
    await row.waitFor();
    expect(await row.getAttribute('data-outcome')).toBe('accepted');
    expect(await row.textContent()).toContain('pay-in');
    expect(loads).toEqual([]);
    await ui.screenshot(join(SHOTS, 'bank-live-notifications.png'));
  });

  it('shows the /user_auth callback of a sign-in live on the Callbacks page, as passed', async () => {
    await ui.openCallbacks();
    const known = await ui.callbackIds();

    const signIn = await sandboxPost(
      `/sandbox/v1/counterparties/${guid}/sign-in`,
      {},
      {
        'CX-Authorization': await bankJwt(OBJ),
      },
    );
    expect(signIn.status, JSON.stringify(signIn.body)).toBe(200);
    expect(signIn.body).toMatchObject({
      ok: true,
      user: { external_id: 'cust-000042', phone: '+4915112345678' },
    });

    const { id, row } = await ui.waitForNewCallback(known);
    expect(await row.getAttribute('data-failed-check')).toBe('');
    expect(await row.textContent()).toContain('/user_auth');
    const detail = await ui.openCallback(id);
    const checks = await ui.detailChecks(detail);
    expect(checks.length).toBeGreaterThan(5);
    expect(checks.filter(([, status]) => status === 'failed')).toEqual([]);
    expect(checks).toContainEqual(['signature', 'passed']);
    expect(checks).toContainEqual(['obj', 'passed']);
    await ui.screenshot(join(SHOTS, 'bank-live-callback-passed.png'));
  });

  it('names the failed check of a callback for a customer the bank does not know', async () => {
    const known = await ui.callbackIds();
    const signIn = await sandboxPost(
      `/sandbox/v1/counterparties/${guid}/sign-in`,
      {},
      {
        'CX-Authorization': await bankJwt(UNKNOWN_OBJ),
      },
    );
    expect(signIn.status, JSON.stringify(signIn.body)).toBe(502);
    expect(signIn.body).toMatchObject({ ok: false });

    const { id, row } = await ui.waitForNewCallback(known);
    expect(await row.getAttribute('data-failed-check')).toBe('obj');
    expect(await ui.byTestId('callback-outcome', row).textContent()).toContain('obj');
    const detail = await ui.openCallback(id);
    expect(await detail.textContent()).toContain('failed: obj');
    const checks = await ui.detailChecks(detail);
    expect(checks).toContainEqual(['obj', 'failed']);
    expect(checks.filter(([, status]) => status === 'failed')).toEqual([['obj', 'failed']]);
    await ui.screenshot(join(SHOTS, 'bank-live-callback-failed.png'));
    const failedCheck = ui.byTestId('check-obj', detail).first();
    expect(await failedCheck.textContent()).toMatch(/failed/);
    await ui.screenshotOf(failedCheck, join(SHOTS, 'bank-live-callback-failed-check.png'));

    // The console's own record agrees: 401 with the check named.
    const stored = (await call('events.get', { id })) as {
      status: number;
      failed_check: string;
      path: string;
    };
    expect(stored).toMatchObject({ status: 401, failed_check: 'obj', path: '/user_auth' });
    expect(pageProblems).toEqual([]);
  });
});
