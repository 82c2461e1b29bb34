/**
 * Issue 7 end to end: `dets-console serve` on a fresh profile, the built renderer in headless
 * Chromium. Self-check on the Conformance page runs the whole suite against a private copy of
 * the console's own bank endpoints: the cases appear one by one as they finish, every one
 * passes, a case opens with the keyboard to its full exchange, and the report exports as JSON
 * (every exchange, no private key) and JUnit. The form refuses bad input, naming the field.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../support/free-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFY_CASE_TEXTS } from '../../electron/contract/notify-cases';
import { ConformancePageModel } from './pages/conformance-page';
import { launchChromium, collectPageProblems } from './support/browser';
import { ROOT } from './support/build';
import { startServe, type ServeProcess, callApi } from './support/serve';

const SHOTS = join(ROOT, 'test-results/e2e');
const CUSTOMER = {
  obj: 'DE89370400440532013000',
  sub: 'ops@bank.example',
  external_id: 'cust-000042',
  phone: '+4915112345678',
  key: 'user-secret-key-42',
};
let jwksPort: number;

const call = (method: string, input?: unknown) => callApi(serve!, method, input);

let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let ui: ConformancePageModel;
const pageProblems: string[] = [];

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  // The live bank endpoints trust the runner's JWKS URL, as a bank under test would.
  jwksPort = await freePort();
  serve = await startServe([
    '--no-sandbox',
    '--service-jwks-url',
    `http://127.0.0.1:${jwksPort}/api/v1/.well-known/jwks.json`,
  ]);
  await call('bank.saveCustomer', CUSTOMER);
  browser = await launchChromium();
  const context = await browser.newContext({
    viewport: { width: 1440, height: 1000 },
    acceptDownloads: true,
  });
  page = await context.newPage();
  collectPageProblems(page, pageProblems);
  ui = new ConformancePageModel(page);
  await ui.openConsole(serve.ready.ui);
  await ui.open();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  const code = await serve?.stop();
  if (serve) expect(code, `serve exit code; stderr:\n${serve.stderr()}`).toBe(0);
}, 30_000);

describe('Conformance page', () => {
  it('shows what to do first, and refuses a bad form naming each field', async () => {
    await ui.byTestId('conformance-empty').waitFor();
    await ui.fill({ url: 'ftp://bank.example', obj: '', sub: 'ops@bank.example', port: '70000' });
    await ui.run();
    expect(await ui.fieldError('bankAuthUrl').textContent()).toMatch(/http\(s\)/);
    expect(await ui.fieldError('obj').textContent()).toMatch(/Required/);
    expect(await ui.fieldError('jwksPort').textContent()).toMatch(/port number/);
    expect(await ui.fieldError('sub').count()).toBe(0);
    // Nothing ran.
    expect(await ui.byTestId('conformance-run-panel').count()).toBe(0);
    await ui.fill({ port: '7303' });
    expect(await ui.byTestId('conformance-jwks-url').textContent()).toBe(
      'http://127.0.0.1:7303/api/v1/.well-known/jwks.json',
    );
  });

  it('Self-check: the cases appear as they run and every one passes', async () => {
    await ui.recordCaseCounts();
    await ui.selfCheck();
    expect(await ui.waitForFinished()).toBe('passed');

    const total = Number(await ui.progress.getAttribute('data-total'));
    expect(total).toBeGreaterThanOrEqual(40);
    expect(await ui.progress.getAttribute('data-done')).toBe(String(total));
    const statuses = await ui.statuses();
    expect(statuses).toHaveLength(total);
    expect(statuses.filter(([, s]) => s !== 'passed')).toEqual([]);
    expect(statuses[0]![0]).toBe('user_auth.valid');
    expect(statuses.map(([id]) => id)).toContain('jwks.rotation');
    expect(await ui.summary.getAttribute('data-failed')).toBe('0');
    expect(await ui.summary.getAttribute('data-passed')).toBe(String(total));

    // Cases appeared progressively, not all at once at the end.
    const counts = await ui.caseCounts();
    expect(counts.at(-1)).toBe(total);
    expect(
      counts.some((n) => n > 0 && n < total),
      `case counts seen: ${counts.join(',')}`,
    ).toBe(true);
    await ui.screenshot(join(SHOTS, 'conformance-self-check.png'));
  });

  it('a case opens with the keyboard to its full exchange: the token sent and the 401 that came back', async () => {
    const body = await ui.openCaseWithKeyboard('user_auth.alg-none');
    await ui.byTestId('conformance-exchange-0', body).locator('summary').click();
    const text = await body.textContent();
    expect(text).toContain('X-Session-ID: eyJ');
    expect(text).toContain('"alg": "none"');
    expect(text).toContain('HTTP 401');
    expect(text).toContain('"check": "alg"');
    const row = ui.case('user_auth.alg-none');
    expect(await ui.byTestId('conformance-case-toggle', row).getAttribute('aria-expanded')).toBe('true');
  });

  it('exports the report as JSON with every exchange and no private key, and as JUnit', async () => {
    const json = await ui.export('json');
    expect(json.suggestedFilename()).toMatch(/^conformance-.*\.json$/);
    const text = await readFile((await json.path())!, 'utf8');
    const report = JSON.parse(text) as {
      kind: string;
      failed: number;
      cases: Array<{ id: string; exchanges: Array<{ request: { headers: Record<string, string> } }> }>;
    };
    expect(report.kind).toBe('self-check');
    expect(report.failed).toBe(0);
    expect(
      report.cases.find((c) => c.id === 'key.valid')!.exchanges[0]!.request.headers['X-Session-ID'],
    ).toMatch(/^eyJ/);
    expect(text).not.toMatch(/PRIVATE KEY|"d":/);

    const junit = await ui.export('junit');
    expect(junit.suggestedFilename()).toMatch(/\.xml$/);
    const xml = await readFile((await junit.path())!, 'utf8');
    expect(xml).toContain(`tests="${report.cases.length}" failures="0"`);
  });

  it('Run against the live bank endpoints (trusting the runner’s JWKS URL): every case passes', async () => {
    await ui.fill({ url: serve!.ready.bank!, obj: CUSTOMER.obj, sub: CUSTOMER.sub, port: String(jwksPort) });
    expect(await ui.byTestId('conformance-jwks-url').textContent()).toBe(
      `http://127.0.0.1:${jwksPort}/api/v1/.well-known/jwks.json`,
    );
    await ui.run();
    expect(await ui.waitForFinished()).toBe('passed');
    expect(await ui.byTestId('conformance-run-panel').textContent()).toContain(serve!.ready.bank!);
    const statuses = await ui.statuses();
    expect(statuses.length).toBeGreaterThanOrEqual(40);
    expect(statuses.filter(([, st]) => st !== 'passed')).toEqual([]);
  });

  it('one click points the live bank at another runner port, whose run passes, and Put back restores the flag’s URL', async () => {
    const otherPort = await freePort();
    const flagUrl = `http://127.0.0.1:${jwksPort}/api/v1/.well-known/jwks.json`;
    const otherUrl = `http://127.0.0.1:${otherPort}/api/v1/.well-known/jwks.json`;
    await ui.fill({ url: serve!.ready.bank!, obj: CUSTOMER.obj, sub: CUSTOMER.sub, port: String(otherPort) });
    await ui.byTestId('conformance-trust-runner').click();
    const result = ui.byTestId('conformance-trust-result');
    await result.waitFor();
    expect(await result.textContent()).toContain(otherUrl);
    expect(await ui.byTestId('conformance-trust-previous').textContent()).toBe(flagUrl);
    expect(await call('bank.status')).toMatchObject({ service_jwks_url: otherUrl });

    await ui.run();
    expect(await ui.waitForFinished()).toBe('passed');

    await ui.byTestId('conformance-trust-undo').click();
    await ui.byTestId('conformance-trust-restored').waitFor();
    expect(await ui.byTestId('conformance-trust-restored').textContent()).toContain(flagUrl);
    expect(await call('bank.status')).toMatchObject({
      service_jwks_url: flagUrl,
      service_jwks_setting: null,
    });
    await ui.fill({ port: String(jwksPort) });
  });

  it('Run for a customer the bank does not know: the valid cases fail naming what to configure', async () => {
    await ui.fill({ obj: 'DE02120300000000202051' });
    await ui.run();
    expect(await ui.waitForFinished()).toBe('failed');
    expect(await ui.case('user_auth.valid').getAttribute('data-status')).toBe('failed');
    expect(await ui.case('user_auth.alg-none').getAttribute('data-status')).toBe('skipped');
    const detail = await ui.byTestId('conformance-case-detail', ui.case('user_auth.valid')).textContent();
    expect(detail).toContain('got 401');
    expect(detail).toContain(`trust http://127.0.0.1:${jwksPort}/api/v1/.well-known/jwks.json`);
    await ui.byTestId('conformance-failed-only').check();
    const shown = await ui.statuses();
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.filter(([, st]) => st === 'passed')).toEqual([]);
    await ui.screenshot(join(SHOTS, 'conformance-failed.png'));
  });

  it('Notifications: the live bank’s notification endpoints pass every notify.* case; the form reads whole at 1440 px', async () => {
    await ui.fill({ url: serve!.ready.bank!, obj: CUSTOMER.obj, sub: CUSTOMER.sub, port: String(jwksPort) });
    await ui.fillNotify({ url: serve!.ready.bank!, prefix: '/api/svc/notify', probe: '' });
    // Issue 26 item 6: at 1440 px the bank URL, the customer and the notify URL fit their fields,
    // and any value that does not is whole on hover.
    expect(await ui.overflowingInputs()).toEqual([]);
    await ui.fillNotify({
      probe: `${serve!.ready.bank!}/a/much/longer/path/to/the/bank/test/probe/of/applied/notifications`,
    });
    expect(await ui.cutInputs()).toEqual([]);
    await ui.fillNotify({ probe: '' });
    await ui.byTestId('conformance-failed-only').uncheck();
    await ui.runNotify();
    // The notification run's ten cases, not the run before it.
    await ui.page
      .locator(`[data-testid="conformance-progress"][data-total="${NOTIFY_CASE_TEXTS.length}"]`)
      .waitFor();
    expect(await ui.waitForFinished()).toBe('passed');
    const statuses = await ui.statuses();
    expect(statuses.map(([id]) => id)).toEqual(NOTIFY_CASE_TEXTS.map((c) => c.id));
    expect(statuses.filter(([, st]) => st !== 'passed')).toEqual([]);
    expect(await ui.byTestId('conformance-run-panel').textContent()).toContain(serve!.ready.bank!);
    await ui.screenshot(join(SHOTS, 'conformance-notify.png'));
  });

  it('the page raised no errors', () => {
    expect(pageProblems).toEqual([]);
  });
});
