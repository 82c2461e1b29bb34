/**
 * The Bank page's ssh tunnel in headless Chromium (issue 26 item 4), against a real OpenSSH
 * server on 127.0.0.1 (test/cli/support/sshd.ts): the settings form saved (identity and
 * known-hosts paths), the tunnel started from the page, the unknown host key shown in a dialog
 * with the fingerprint `ssh-keygen -lf` prints, "Not now" keeping it unconfirmed, then "Trust and
 * connect" pinning it and bringing the tunnel up without a restart (the public URL answers);
 * then the host's key replaced: the page refuses loudly with both fingerprints, Unpin asks about
 * the new key as an unknown one, and trusting it brings the tunnel back. No DETS_SSH_COMMAND: the
 * page's settings are all ssh gets. Every process (serve, sshd and its children, the tunnel's
 * ssh) is stopped by PID.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshFixture, type SshFixture } from '../cli/support/sshd';
import { freePort } from '../support/free-port';
import { BankPageModel } from './pages/bank-page';
import { launchPage } from './support/browser';
import { startServe, type ServeProcess } from './support/serve';

let sshd: SshFixture | undefined;
let dir: string | undefined;
let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let knownHosts: string;
const problems: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'dets-e2e-tunnel-'));
  sshd = await sshFixture(path.join(dir, 'sshd'), await freePort());
  await sshd.start();
  // The engineer's own known-hosts file, empty: never root's ~/.ssh/known_hosts.
  knownHosts = path.join(dir, 'own_known_hosts');
  await writeFile(knownHosts, '');
  serve = await startServe([], 60_000, { env: { DETS_SSH_COMMAND: '' } });
  ({ browser, page } = await launchPage(problems));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  const code = await serve?.stop();
  await sshd?.kill();
  if (dir) await rm(dir, { recursive: true, force: true });
  expect(code, `serve exit code; stderr:\n${serve?.stderr().slice(-2000)}`).toBe(0);
}, 60_000);

/** `ssh-keygen -lf FILE.pub` → its SHA256 fingerprint. */
const fingerprintOf = (pub: string) =>
  /SHA256:\S+/.exec(execFileSync('ssh-keygen', ['-lf', pub], { encoding: 'utf8' }))![0];

describe('the ssh tunnel from the Bank page (real sshd, Chromium)', () => {
  it('saves the settings, confirms the host key in a dialog, comes up; a replaced key is refused until unpinned and trusted', async () => {
    const bank = new BankPageModel(page);
    await bank.openConsole(serve!.ready.ui as string);
    await bank.open();
    const by = (id: string) => bank.byTestId(id);

    // The settings (shown once ssh is chosen): paths only; saved for the active environment.
    await by('bank-tunnel-client').selectOption('ssh');
    await by('bank-ssh-identity').fill(sshd!.userKey);
    await by('bank-ssh-known-hosts').fill(knownHosts);
    await by('bank-ssh-save').click();
    await by('bank-ssh-saved').waitFor();

    // The tunnel through ssh, started from the page.
    await by('bank-tunnel-ssh').fill(`root@127.0.0.1:${sshd!.port}`);
    await by('bank-tunnel-start').click();
    const dialog = by('host-key-dialog');
    await dialog.waitFor();
    const first = fingerprintOf(`${sshd!.hostKey}.pub`);
    expect(await by('host-key-fingerprint').textContent()).toContain(first);
    expect(await by('bank-tunnel-state').textContent()).toMatch(/ssh: failed/);

    // "Not now" (the focused button: Enter takes it): nothing pinned, the page says so.
    await page.keyboard.press('Enter');
    await by('bank-host-key-later').waitFor();
    expect(await dialog.count()).toBe(0);
    await by('bank-host-key-later').getByRole('button', { name: 'Review it' }).click();
    await dialog.waitFor();

    await by('host-key-trust').click();
    await page.locator('[data-testid="bank-tunnel-state"].tunnel-up').waitFor();
    const url = (await by('bank-public-url').textContent())!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/user_auth`)).status).toBe(401);

    // The host's key replaced under the same address.
    await by('bank-tunnel-stop').click();
    await by('bank-tunnel-start').waitFor();
    await sshd!.kill();
    await rm(sshd!.hostKey);
    await rm(`${sshd!.hostKey}.pub`);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', sshd!.hostKey]);
    await sshd!.start();
    const second = fingerprintOf(`${sshd!.hostKey}.pub`);

    await by('bank-tunnel-start').click();
    const changed = by('bank-host-key-changed');
    await changed.waitFor();
    expect(await by('bank-host-key-old').textContent()).toContain(first);
    expect(await by('bank-host-key-new').textContent()).toContain(second);
    expect(await dialog.count()).toBe(0);

    await by('bank-host-key-unpin').click();
    await dialog.waitFor();
    expect(await by('host-key-fingerprint').textContent()).toContain(second);
    await by('host-key-trust').click();
    await page.locator('[data-testid="bank-tunnel-state"].tunnel-up').waitFor();
    expect(await changed.count()).toBe(0);
    const again = (await by('bank-public-url').textContent())!;
    expect((await fetch(`${again}/user_auth`)).status).toBe(401);

    await by('bank-tunnel-stop').click();
    await by('bank-tunnel-start').waitFor();
    expect(problems).toEqual([]);
  }, 120_000);
});
