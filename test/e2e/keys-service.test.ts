/**
 * Keys, the Composer and the Service page end to end, as a bank's engineer uses them on a fresh
 * laptop: `dets-console serve` on a fresh data directory (its vault in the test's Secret Service,
 * see scripts/with-keyring.sh), the built renderer in headless Chromium. Generate a key, register
 * it with the sandbox, compose a token, authenticate against the sandbox, and see the
 * session_token's checks pass. Throughout, no private key material reaches the page: neither its
 * DOM nor any API answer carries a JWK's private "d" member or a PEM private key.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComposerPageModel } from './pages/composer-page';
import { KeysPageModel } from './pages/keys-page';
import { ServicePageModel } from './pages/service-page';
import { launchChromium, collectPageProblems } from './support/browser';
import { ROOT } from './support/build';
import { startServe, type ServeProcess } from './support/serve';

const SHOTS = join(ROOT, 'test-results/e2e');
const OBJ = 'DE89370400440532013000';
const SUB = 'ops@bank.example';
const KID = 'bank-e2e-2025';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** What private key material looks like: a JWK's private exponent, or a PEM private key. */
const PRIVATE = [/"d"\s*:/, /PRIVATE KEY/];

let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let keys: KeysPageModel;
let composer: ComposerPageModel;
let service: ServicePageModel;
let guid: string;
let token: string;
const pageProblems: string[] = [];
/** Every ConsoleApi answer the page received: method and body. */
const apiAnswers: Array<Promise<{ url: string; body: string }>> = [];

/** A date `days` from today, YYYY-MM-DD (UTC, as the key store counts days). */
function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  serve = await startServe();
  if (!serve.ready.sandbox) throw new Error(`serve started no sandbox: ${JSON.stringify(serve.ready)}`);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  page = await context.newPage();
  collectPageProblems(page, pageProblems);
  page.on('response', (res) => {
    if (!new URL(res.url()).pathname.startsWith('/api/call/')) return;
    apiAnswers.push(res.text().then((body) => ({ url: res.url(), body })));
  });
  keys = new KeysPageModel(page);
  composer = new ComposerPageModel(page);
  service = new ServicePageModel(page);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  const code = await serve?.stop();
  if (serve) expect(code, `serve exit code; stderr:\n${serve.stderr()}`).toBe(0);
}, 30_000);

describe('Keys, Composer and Service in browser mode', () => {
  it('opens on the sandbox environment with a usable vault (no vault banner)', async () => {
    await keys.openConsole(serve!.ready.ui);
    await keys.open();
    expect(await keys.activeEnvironment()).toEqual({ id: 'sandbox', kind: 'sandbox' });
    expect(await keys.vaultBanner.count()).toBe(0);
    expect(await keys.byTestId('keys-empty').isVisible()).toBe(true);
  });

  it('generates a key in the UI: listed with its expiry warning, and the header pill links to it', async () => {
    const kid = await keys.generate({ kid: KID, label: 'E2E signing key', expires: inDays(20) });
    expect(kid).toBe(KID);
    const row = keys.row(KID);
    expect(await row.getAttribute('data-status')).toBe('active');
    expect(await row.getAttribute('data-expiry')).toBe('soon');
    expect(await keys.byTestId('key-expiry-warning', row).textContent()).toMatch(/in (19|20) days/);
    expect(await keys.expiryPill.getAttribute('data-kid')).toBe(KID);
    expect(await keys.expiryPill.getAttribute('href')).toBe('#/keys');
  });

  it('exports the public part only, as the spec JWK, a JWKS and PEM', async () => {
    const out = await keys.export(KID, ['jwk', 'jwks', 'pem']);
    const jwk = JSON.parse(out.jwk!) as Record<string, unknown>;
    expect(Object.keys(jwk).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(jwk).toMatchObject({ alg: 'RS256', kid: KID, kty: 'RSA', use: 'sig' });
    expect(JSON.parse(out.jwks!)).toEqual({ keys: [jwk] });
    expect(out.pem).toContain('-----BEGIN PUBLIC KEY-----');
  });

  it('registers the key with the sandbox: a new counterparty, saved on the sandbox environment', async () => {
    guid = await keys.registerWithSandbox(KID);
    expect(guid).toMatch(GUID);
    const res = await fetch(`${serve!.ready.sandbox}/sandbox/v1/counterparties/${guid}`);
    expect(res.status).toBe(200);
    const counterparty = (await res.json()) as { jwks: Array<{ jwk: { kid?: string; d?: unknown } }> };
    expect(counterparty.jwks.map((j) => j.jwk.kid)).toEqual([KID]);
    // The action is done: the environment has its counterparty and this key.
    await keys.byTestId('key-register-sandbox').waitFor({ state: 'detached' });
    await keys.byTestId('key-in-env', keys.row(KID)).waitFor();
    await keys.screenshot(join(SHOTS, 'keys.png'));
  });

  it("composes a token with the environment's key: flow sign-in, the claims typed, signed by the vault", async () => {
    await composer.open();
    await page.waitForFunction(
      (kid) =>
        (document.querySelector('[data-testid="composer-kid"]') as HTMLSelectElement | null)?.value === kid,
      KID,
    );
    token = await composer.sign({ obj: OBJ, sub: SUB });
    expect(token.split('.')).toHaveLength(3);
    expect(await composer.decoded('header')).toMatchObject({ alg: 'RS256', kid: KID, typ: 'JWT' });
    const payload = await composer.decoded('payload');
    expect(payload).toMatchObject({ flow: 'sign-in', obj: OBJ, sub: SUB });
    expect((payload.exp as number) - (payload.iat as number)).toBe(300);
    expect(await composer.warnings()).toEqual([]);

    const result = await composer.send();
    expect(await result.getAttribute('data-ok')).toBe('true');
    const checks = await service.sessionChecks(result);
    expect(checks).toMatchObject({ signature: 'passed', obj: 'passed', sub: 'passed' });
  });

  it('opens the token in the Inspector, verified with the key it was signed with', async () => {
    const inspected = await composer.openInInspector();
    expect(inspected.token).toBe(token);
    expect(inspected.verdict).toBe('passed');
  });

  it("authenticates against the sandbox from the Service page: HTTP 200, and the session_token's checks pass", async () => {
    await service.open();
    const result = await service.authenticate({ obj: OBJ, sub: SUB });
    expect(await result.getAttribute('data-ok')).toBe('true');
    expect(await service.byTestId('exchange-status', result).textContent()).toBe('HTTP 200');
    const checks = await service.sessionChecks(result);
    expect(checks).toMatchObject({ signature: 'passed', obj: 'passed', sub: 'passed' });
    expect(Object.values(checks)).not.toContain('failed');

    const { request, response } = await service.openNewestExchange();
    expect(request).toContain(`POST ${serve!.ready.sandbox}/api/v1/counterparty/${guid}/jwk/authenticate`);
    expect(request).toMatch(/CX-Authorization: eyJ/i);
    expect(response).toContain('HTTP 200');
    expect(response).toContain('session_token');
    await service.screenshot(join(SHOTS, 'service.png'));
  });

  it('rotates the key through the wizard: the next key is registered, proven and active, the old one retired', async () => {
    const { state, steps } = await service.rotate();
    expect(steps).toEqual({
      generate: 'passed',
      register: 'passed',
      prove: 'passed',
      activate: 'passed',
      retire: 'passed',
    });
    expect(state).toBe('done');
    await keys.open();
    expect(await keys.row(KID).getAttribute('data-status')).toBe('retired');
    const active = page.locator('[data-testid="key-table"] tbody tr[data-status="active"]');
    expect(await active.count()).toBe(1);
    // The new key is the environment's now, and it has no expiry: the header pill is gone.
    expect(await keys.byTestId('key-in-env', active).count()).toBe(1);
    await keys.expiryPill.waitFor({ state: 'detached' });
  });

  it('never lets private key material reach the page: not in the DOM, not in any API answer', async () => {
    const html = await page.evaluate(() => document.documentElement.outerHTML);
    for (const pattern of PRIVATE) expect(html).not.toMatch(pattern);
    const answers = await Promise.all(apiAnswers);
    const methods = answers.map((a) => new URL(a.url).pathname.replace('/api/call/', ''));
    for (const m of ['keys.generate', 'keys.list', 'keys.export', 'jwt.sign', 'service.authenticate'])
      expect(methods).toContain(m);
    for (const { url, body } of answers)
      for (const pattern of PRIVATE) expect(body, `answer of ${url}`).not.toMatch(pattern);
  });

  it('logged no page error, CSP violation or failed request', () => {
    expect(pageProblems).toEqual([]);
  });
});
