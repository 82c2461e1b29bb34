/**
 * The walkthrough end to end, as a newcomer meets it: `dets-console serve` on a fresh data
 * directory (its sandbox and bank endpoints on free ports, its vault in the test's Secret
 * Service), the built renderer in headless Chromium. Every step is completed by clicking its one
 * action, with no typing; each step is seen not done before its click and done after it (its
 * state comes from the core, derived from the event the click caused). One step fails on
 * purpose: a new key that the service does not know, refused with a 401 whose reason and fix the
 * page shows. The evidence pack is downloaded and checked for redaction. Screenshots before,
 * midway (the failure) and done go to test-results/walkthrough/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WalkthroughPageModel, type WalkthroughStepId } from './pages/walkthrough-page';
import { launchChromium, collectPageProblems } from './support/browser';
import { ROOT } from './support/build';
import { callApi, startServe, type ServeProcess } from './support/serve';

const SHOTS = join(ROOT, 'test-results/walkthrough');

let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let walkthrough: WalkthroughPageModel;
const pageProblems: string[] = [];

const api = (method: string, input?: unknown) => callApi(serve!, method, input);

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  serve = await startServe();
  if (!serve.ready.sandbox || !serve.ready.bank) {
    throw new Error(`serve started no sandbox or bank endpoints: ${JSON.stringify(serve.ready)}`);
  }
  browser = await launchChromium();
  const context = await browser.newContext({
    viewport: { width: 1280, height: 1100 },
    acceptDownloads: true,
  });
  page = await context.newPage();
  collectPageProblems(page, pageProblems);
  walkthrough = new WalkthroughPageModel(page);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  const code = await serve?.stop();
  if (serve) expect(code, `serve exit code; stderr:\n${serve.stderr()}`).toBe(0);
}, 30_000);

/** Asserts the step is not done, clicks its action, and waits for it to turn done. */
async function completes(id: WalkthroughStepId): Promise<void> {
  expect(await walkthrough.state(id), `${id} before its click`).not.toBe('done');
  const result = await walkthrough.run(id);
  expect(result.ok, `${id}: ${result.message}`).toBe(true);
  await walkthrough.waitForState(id, 'done');
}

describe('the guided walkthrough against the built-in sandbox', () => {
  const started = Date.now();

  it('opens as the home page of a fresh profile with all eight steps to do', async () => {
    await walkthrough.open(serve!.ready.ui);
    expect(await walkthrough.activeEnvironment()).toEqual({ id: 'sandbox', kind: 'sandbox' });
    const states = await walkthrough.states();
    expect(Object.keys(states)).toEqual([
      'key',
      'register',
      'compose',
      'authenticate',
      'callbacks',
      'sign-in',
      'notifications',
      'rotate',
    ]);
    expect(Object.values(states)).toEqual(Array(8).fill('pending'));
    expect(await walkthrough.progress()).toBe(0);
    // Each step says what the service expects and where the spec says so.
    const signIn = (await walkthrough.step('sign-in').textContent()) ?? '';
    expect(signIn).toMatch(/spec 4\.4/);
    expect(signIn).toMatch(/GET \/user_auth with it in X-Session-ID/);
    await walkthrough.screenshot(join(SHOTS, '1-before.png'));
  });

  it('creates the key, registers it and composes a JWT, each turning green only after its click', async () => {
    await completes('key');
    expect(await walkthrough.state('register')).toBe('pending');
    await completes('register');
    expect(await walkthrough.summary('register')).toMatch(/registered for counterparty/);
    await completes('compose');
    expect(await walkthrough.summary('compose')).toMatch(/flow sign-in, obj "DE89370400440532013000"/);
  });

  it('fails on purpose with a key the service does not know, and shows the reason and the fix', async () => {
    // A second key becomes the environment's active key; the sandbox only knows the first.
    expect(await walkthrough.actionLabel('key')).toBe('Create a new key');
    await walkthrough.run('key');
    await walkthrough.waitForState('register', 'pending');
    // The page now holds authenticate back until the new key is registered, and says so.
    expect(await walkthrough.blockedReason('authenticate')).toMatch(/Needs step 2 first/);
    expect(await walkthrough.isNext('register')).toBe(true);
    // A script (or the Service page) can still try: the step shows the refusal, reason and fix.
    const result = (await api('walkthrough.run', { step: 'authenticate' })) as { ok: boolean };
    expect(result.ok).toBe(false);
    await walkthrough.waitForState('authenticate', 'failed');
    const reason = await walkthrough.reason('authenticate');
    expect(reason).toMatch(/the service answered 401: kid ".+" is not registered for this counterparty/);
    const fix = await walkthrough.fix('authenticate');
    expect(fix).toMatch(/Register the JWK first: run step 2/);
    await walkthrough.screenshotAt('register', join(SHOTS, '2-midway-failed.png'));

    // The fix: register the new key (PUT, signed by the first), then authenticate again.
    const registered = await walkthrough.run('register');
    expect(registered.message).toMatch(/PUT/);
    await walkthrough.waitForState('register', 'done');
  });

  it('completes the other steps by clicking, in order, with no typing', async () => {
    for (const id of ['authenticate', 'callbacks', 'sign-in', 'notifications', 'rotate'] as const) {
      await completes(id);
      if (id === 'authenticate') {
        // The session_token's checks, against the sandbox's JWKS.
        await walkthrough.byTestId('step-session', walkthrough.step('authenticate')).waitFor();
        expect(
          await walkthrough
            .byTestId('verdict', walkthrough.step('authenticate'))
            .getAttribute('data-verdict'),
        ).toBe('passed');
      }
    }
    expect(Object.values(await walkthrough.states())).toEqual(Array(8).fill('done'));
    expect(await walkthrough.progress()).toBe(8);
    await walkthrough.byTestId('walkthrough-complete').waitFor();
    // Well within the two minutes a newcomer has (a generous bound on a shared 2-core machine).
    expect(Date.now() - started).toBeLessThan(120_000);
    await walkthrough.screenshot(join(SHOTS, '3-done.png'));
  });

  it('exports the evidence pack, redacted', async () => {
    // The keys never come in an answer: they are a one-time download from the host.
    const prepared = (await api('bank.exportCustomersWithKeys', { confirm: 'include secret keys' })) as {
      path: string;
    };
    const ui = new URL(serve!.ready.ui);
    const file = await fetch(`${ui.origin}${prepared.path}`, {
      headers: { 'x-dets-token': ui.searchParams.get('token') ?? '' },
    });
    const secrets = ((await file.json()) as Array<{ key: string }>).map((c) => c.key);
    expect(secrets.length).toBeGreaterThan(0);

    const { filename, text } = await walkthrough.exportPack();
    expect(filename).toMatch(/^dets-walkthrough-sandbox-\d{4}-\d{2}-\d{2}\.json$/);
    for (const secret of secrets)
      expect(text.includes(secret), 'a customer secret key is in the pack').toBe(false);
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toMatch(/"(d|p|q|dp|dq|qi)"\s*:/);
    const pack = JSON.parse(text) as {
      steps: Array<{ id: string; state: string; at: string | null }>;
      keys: Array<{ kid: string; fingerprint: { value: string }; public_jwk: Record<string, unknown> }>;
      tokens: { bank_jwt: { token: string }; session_token: { token: string } };
      exchanges: Array<{ request: { headers: Record<string, string> } }>;
      markdown: string;
    };
    expect(pack.steps.map((s) => s.state)).toEqual(Array(8).fill('done'));
    expect(pack.steps.every((s) => s.at !== null)).toBe(true);
    expect(pack.keys.length).toBeGreaterThanOrEqual(2);
    for (const key of pack.keys) {
      expect(key.fingerprint.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Object.keys(key.public_jwk).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    }
    const shortened = /^eyJ[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{8}…$/;
    expect(pack.tokens.bank_jwt.token).toMatch(shortened);
    expect(pack.tokens.session_token.token).toMatch(shortened);
    for (const e of pack.exchanges) {
      const cx = e.request.headers['CX-Authorization'];
      if (cx) expect(cx).toMatch(shortened);
    }
    expect(pack.markdown).toMatch(/8 of 8 steps done/);
  });

  it('raised no page errors', () => {
    expect(pageProblems).toEqual([]);
  });
});
