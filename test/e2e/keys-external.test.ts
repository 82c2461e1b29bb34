/**
 * Issue 29: the Keys page's "Add a key held elsewhere" dialog end to end, in headless Chromium
 * against `dets-console serve`, with a real SoftHSM 2 token behind OpenSC's pkcs11-tool (the
 * PIN only in serve's environment). A template with the PIN written in is refused under the
 * command field and nothing is stored; the fixed template is tested and added, the row says the
 * key is held elsewhere, the key is registered with the sandbox and a token composed on the
 * Composer page verifies with node:crypto against the HSM's public key and is accepted by the
 * sandbox. No API answer carries the PIN or private key material.
 */
import { createVerify } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { softHsmToken, PIN_VAR, type SoftHsmToken } from '../support/softhsm';
import { ComposerPageModel } from './pages/composer-page';
import { KeysPageModel } from './pages/keys-page';
import { collectPageProblems, launchChromium } from './support/browser';
import { startServe, type ServeProcess } from './support/serve';

const KID = 'hsm-e2e-2026';
const OBJ = 'DE89370400440532013000';
const SUB = 'ops@bank.example';

let hsm: SoftHsmToken;
let pem: string;
let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let keys: KeysPageModel;
const pageProblems: string[] = [];
const apiAnswers: Array<Promise<string>> = [];
const saved = { conf: process.env.SOFTHSM2_CONF, pin: process.env[PIN_VAR] };

beforeAll(async () => {
  hsm = await softHsmToken('dets-e2e');
  pem = await hsm.keypair('41');
  // serve inherits this environment, as the desktop app inherits the engineer's session.
  process.env.SOFTHSM2_CONF = hsm.env.SOFTHSM2_CONF;
  process.env[PIN_VAR] = hsm.pin;
  serve = await startServe();
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1440, height: 1000 } })).newPage();
  collectPageProblems(page, pageProblems);
  page.on('response', (res) => {
    if (new URL(res.url()).pathname.startsWith('/api/call/')) apiAnswers.push(res.text().catch(() => ''));
  });
  keys = new KeysPageModel(page);
}, 240_000);

afterAll(async () => {
  process.env.SOFTHSM2_CONF = saved.conf;
  if (saved.pin === undefined) delete process.env[PIN_VAR];
  else process.env[PIN_VAR] = saved.pin;
  await browser?.close();
  const code = await serve?.stop();
  await hsm?.close();
  if (serve) expect(code, `serve exit code; stderr:\n${serve.stderr()}`).toBe(0);
}, 30_000);

describe('Add a key held elsewhere, in browser mode', () => {
  it('refuses a command with the PIN written in, under the command field, and stores nothing', async () => {
    await keys.openConsole(serve!.ready.ui);
    await keys.open();
    const withPin = hsm.signCommand('41').replace(`env:${PIN_VAR}`, hsm.pin);
    const outcome = await keys.addExternal({ publicKey: pem, kid: KID, command: withPin });
    expect(outcome).toMatch(/would store a secret in the profile \(word \d+ is a literal value of --pin\)/);
    expect(outcome).toMatch(/pkcs11-tool --pin env:VAR/);
    expect(outcome).not.toContain(hsm.pin);
    expect(await keys.byTestId('external-command-error').isVisible()).toBe(true);
    expect(await keys.kids().catch(() => [])).toEqual([]);
  });

  it('tests the fixed command against the token and adds the key; its row says it is held elsewhere', async () => {
    const outcome = await keys.addExternal({ publicKey: pem, kid: KID, command: hsm.signCommand('41') });
    expect(outcome).toBe('added');
    const row = keys.row(KID);
    expect(await row.getAttribute('data-status')).toBe('active');
    const tag = keys.byTestId('key-held-elsewhere', row);
    expect(await tag.textContent()).toBe('held elsewhere');
    expect(await tag.getAttribute('title')).toContain('pkcs11-tool');
  });

  it('registers it with the sandbox and composes a token the HSM signed, accepted by the sandbox', async () => {
    await keys.registerWithSandbox(KID);
    await keys.byTestId('key-in-env', keys.row(KID)).waitFor();
    const composer = new ComposerPageModel(page);
    await composer.open();
    await page.waitForFunction(
      (kid) =>
        (document.querySelector('[data-testid="composer-kid"]') as HTMLSelectElement | null)?.value === kid,
      KID,
    );
    const token = await composer.sign({ obj: OBJ, sub: SUB });
    const [h, p, s] = token.split('.') as [string, string, string];
    expect(createVerify('sha256').update(`${h}.${p}`).verify(pem, Buffer.from(s, 'base64url'))).toBe(true);
    const result = await composer.send();
    expect(await result.getAttribute('data-ok')).toBe('true');
  });

  it('no API answer carried the PIN or private key material, and the page logged no problem', async () => {
    const bodies = await Promise.all(apiAnswers);
    expect(bodies.length).toBeGreaterThan(3);
    for (const body of bodies) {
      expect(body).not.toContain(hsm.pin);
      expect(body).not.toMatch(/"d"\s*:|PRIVATE KEY/);
    }
    expect(pageProblems).toEqual([]);
  });
});
