/**
 * End to end, as an engineer uses it: `dets-console serve` on a fresh data directory, the built
 * renderer in headless Chromium at the URL serve printed, real tokens signed with jose, the real
 * inspector core behind the real wire protocol. Screenshots land in test-results/e2e/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InspectorPageModel } from './pages/inspector-page';
import { launchChromium, collectPageProblems } from './support/browser';
import { ROOT } from './support/build';
import { startServe, type ServeProcess } from './support/serve';
import { createSigner, nowSeconds, unsignedToken, type TestSigner } from './support/tokens';

const SHOTS = join(ROOT, 'test-results/e2e');
const OBJ = 'DE89370400440532013000';
const SUB = 'ops@bank.example';

let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;
let inspector: InspectorPageModel;
let signer: TestSigner;
const pageProblems: string[] = [];

beforeAll(async () => {
  // Not emptied first: other e2e files write their screenshots here at the same time.
  await mkdir(SHOTS, { recursive: true });
  signer = await createSigner('bank-key-2025-01');
  serve = await startServe();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  page = await context.newPage();
  collectPageProblems(page, pageProblems);
  inspector = new InspectorPageModel(page);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  const code = await serve?.stop();
  if (serve) expect(code, `serve exit code; stderr:\n${serve.stderr()}`).toBe(0);
}, 30_000);

describe('Token Inspector in browser mode', () => {
  it('opens from the URL serve printed, drops the token from the address bar and streams live events', async () => {
    await inspector.open(serve!.ready.ui);
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);
    await inspector.emptyState.waitFor();
    await page
      .locator('[data-testid="connection-status"][data-mode="browser"][data-status="connected"]')
      .waitFor();
    expect(await inspector.connectionStatus.textContent()).toContain('events live');
  });

  it('inspects a pasted header line: RS256 token, kid, claims; signature skipped without a key', async () => {
    const iat = nowSeconds();
    const token = await signer.sign({ flow: 'sign-in', obj: OBJ, sub: SUB, iat, exp: iat + 600 });
    await inspector.focusTokenWithShortcut();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'token-input',
    );
    await inspector.pasteToken(`CX-Authorization: Bearer ${token}`);

    const statuses = await inspector.checkStatuses();
    expect(statuses).toMatchObject({
      structure: 'passed',
      alg: 'passed',
      kid: 'passed',
      signature: 'skipped',
      exp: 'passed',
      iat: 'passed',
      flow: 'passed',
    });
    expect(await inspector.verdictKind()).toBe('unverified');
    expect(await inspector.decoded('payload')).toMatchObject({
      flow: 'sign-in',
      obj: OBJ,
      sub: SUB,
      iat,
      exp: iat + 600,
    });
    expect(await inspector.decoded('header')).toMatchObject({ alg: 'RS256', kid: signer.kid });

    const colours = await inspector.segmentColours();
    expect(new Set([colours.header, colours.payload, colours.signature]).size).toBe(3);
    expect(colours.ignored).toBeDefined(); // the stripped "CX-Authorization: Bearer " prefix
  });

  it('verifies the signature once the public JWK is pasted as the key source', async () => {
    await inspector.useKeySource('text', JSON.stringify(signer.publicJwk, null, 2));
    expect(await inspector.checkStatus('signature')).toBe('passed');
    expect(await inspector.checkStatus('kid')).toBe('passed');
    expect(await inspector.verdictKind()).not.toBe('failed');
    await inspector.expectClaims(OBJ, SUB);
    expect(await inspector.checkStatus('obj')).toBe('passed');
    expect(await inspector.checkStatus('sub')).toBe('passed');
    await inspector.screenshot(join(SHOTS, 'inspector-valid.png'));
  });

  it('fails exp for an expired token (and obj for the wrong customer), with the signature still valid', async () => {
    const iat = nowSeconds() - 7200;
    const expired = await signer.sign({
      flow: 'sign-in',
      obj: 'DE02120300000000202051',
      sub: SUB,
      iat,
      exp: iat + 300,
    });
    await inspector.pasteToken(expired);
    expect(await inspector.checkStatus('exp')).toBe('failed');
    expect(await inspector.checkStatus('obj')).toBe('failed');
    expect(await inspector.checkStatus('signature')).toBe('passed');
    expect(await inspector.checkStatus('alg')).toBe('passed');
    expect(await inspector.verdictKind()).toBe('failed');
    expect(await inspector.verdict.textContent()).toMatch(/checks failed/);
    expect(await inspector.check('exp').textContent()).toContain('failed');
    await inspector.screenshot(join(SHOTS, 'inspector-expired.png'));
  });

  it('refuses an unsigned alg-none token', async () => {
    const iat = nowSeconds();
    await inspector.pasteToken(unsignedToken({ flow: 'sign-in', obj: OBJ, sub: SUB, iat, exp: iat + 300 }));
    expect(await inspector.checkStatus('alg')).toBe('failed');
    expect(await inspector.checkStatus('signature')).not.toBe('passed');
    expect(await inspector.verdictKind()).toBe('failed');
  });

  it('shows the same page in dark mode', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await inspector.trySample();
    // The static demo token is long expired; its key and claims come with it.
    const statuses = await inspector.checkStatuses();
    expect(Object.entries(statuses).filter(([, s]) => s === 'failed')).toEqual([['exp', 'failed']]);
    expect(statuses).toMatchObject({ signature: 'passed', obj: 'passed', sub: 'passed' });
    await inspector.screenshot(join(SHOTS, 'inspector-sample-dark.png'));
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('Clear empties everything the sample set, so a fresh token then passes', async () => {
    await inspector.trySample();
    expect(await inspector.checkStatus('exp')).toBe('failed');
    expect(await inspector.clear()).toEqual({ token: '', keyNone: true, obj: '', sub: '' });
    const iat = nowSeconds();
    await inspector.pasteToken(
      await signer.sign({ flow: 'sign-in', obj: OBJ, sub: 'someone-else@bank.example', iat, exp: iat + 300 }),
    );
    await inspector.useKeySource('text', JSON.stringify(signer.publicJwk));
    const statuses = await inspector.checkStatuses();
    expect(Object.entries(statuses).filter(([, s]) => s === 'failed')).toEqual([]);
    expect(statuses.signature).toBe('passed');
    expect(await inspector.verdictKind()).not.toBe('failed');
  });

  it('keeps working after a reload (token kept for the origin); a second tab without the token works too', async () => {
    await page.reload();
    await inspector.tokenInput.waitFor();
    await page.locator('[data-testid="connection-status"][data-status="connected"]').waitFor();
    await inspector.pasteToken(unsignedToken({ sub: 'x' }));
    expect(await inspector.checkStatus('alg')).toBe('failed');

    // Same browser, a new tab without the token: it reads the token this origin stored (issue 24 item 9).
    const secondTab = new InspectorPageModel(await context.newPage());
    try {
      await secondTab.open(new URL('/', serve!.ready.ui).toString());
      await secondTab.pasteToken(unsignedToken({ sub: 'x' }));
      expect(await secondTab.checkStatus('alg')).toBe('failed');
      expect(await secondTab.accessProblem.count()).toBe(0);
    } finally {
      await secondTab.page.close();
    }
  });

  it('logged no page error, CSP violation or failed request', () => {
    expect(pageProblems).toEqual([]);
  });
});
