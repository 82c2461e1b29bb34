/**
 * Issue 26's end-to-end test: the whole real-environment walkthrough in headless Chromium (a
 * fresh browser profile), against a second console's sandbox standing in for the real service,
 * reached only through the first console's bank endpoints behind a real `ssh -R` tunnel through
 * a test-started sshd on 127.0.0.1 (test/cli/support/sshd.ts; `serve --tunnel ssh:` with
 * DETS_SSH_COMMAND giving the identity and known-hosts file, not the Bank page's tunnel form).
 *
 * What must hold (DESIGN.md "Environments"): notifications posted to the bank listener before
 * the environment existed, the built-in sandbox's own sign-in and notifications for the same
 * obj/sub and key, and a replay of that sandbox callback never turn a real step green or red;
 * each step turns green only from its own events: the service's callback and notifications
 * through the tunnel; the journey reads in order (public URL, the block to send, the guid back;
 * steps 6 and 7 name who starts them); the evidence pack names the proving events.
 * Every process (both consoles, sshd and its children, the tunnel's ssh) is stopped by PID.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshFixture, type SshFixture } from '../cli/support/sshd';
import { expectDoneStepsProven } from '../support/evidence-pack';
import { freePort } from '../support/free-port';
import { WalkthroughPageModel, type StepState, type WalkthroughStepId } from './pages/walkthrough-page';
import { collectPageProblems, launchChromium } from './support/browser';
import { callApi, startServe, type ServeProcess } from './support/serve';

const ROUTES = ['pay-in', 'pay-out', 'transfer'] as const;

let sshd: SshFixture | undefined;
let sshDir: string | undefined;
let service: ServeProcess | undefined;
let bank: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  sshDir = await mkdtemp(path.join(tmpdir(), 'dets-e2e-sshd-'));
  sshd = await sshFixture(sshDir, await freePort());
  await sshd.start();
  // The "real service": a console whose sandbox is reached only by its URL.
  service = await startServe();
  bank = await startServe(['--tunnel', `ssh:root@127.0.0.1:${sshd.port}`], 60_000, {
    env: { DETS_SSH_COMMAND: sshd.sshCommand },
  });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  collectPageProblems(page, problems);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  const codes = [await bank?.stop(), await service?.stop()];
  await sshd?.kill();
  if (sshDir) await rm(sshDir, { recursive: true, force: true });
  expect(codes, `serve exit codes; stderr:\n${bank?.stderr().slice(-2000)}`).toEqual([0, 0]);
}, 60_000);

const api = (method: string, input?: unknown) => callApi(bank!, method, input);
const svc = (method: string, input?: unknown) => callApi(service!, method, input);

/** Every step's state as the page shows it; none may ever be red. */
async function noneRed(wt: WalkthroughPageModel, when: string): Promise<Record<string, StepState>> {
  const states = await wt.states();
  expect(
    Object.entries(states).filter(([, s]) => s === 'failed'),
    `red steps ${when}`,
  ).toEqual([]);
  return states;
}

async function post(url: string, body: string): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  await res.arrayBuffer();
  return res.status;
}

/** A sandbox sends pay-in, pay-out and transfer (to the receiver); each answered 200. */
async function notifyEach(
  call: (method: string, input?: unknown) => Promise<unknown>,
  guid: string,
): Promise<Array<{ url: string; transaction_id: string }>> {
  const out: Array<{ url: string; transaction_id: string }> = [];
  for (const event of ROUTES) {
    const sent = (await call('sandbox.notify', {
      counterparty_guid: guid,
      event,
      ...(event === 'transfer' ? { to: 'receiver' } : {}),
    })) as { status: number; url: string; transaction_id: string };
    expect(sent.status, `${event}: ${JSON.stringify(sent)}`).toBe(200);
    out.push(sent);
  }
  return out;
}

/** Waits (bounded) until the bank stored `n` callbacks more than `before`. */
async function callbacksStored(before: number, n: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const page = (await api('events.query', { kind: 'callback', path: '/user_auth', limit: 1 })) as {
      total: number;
    };
    if (page.total >= before + n) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the bank did not store the callback');
}

describe('the real-environment walkthrough through a real ssh tunnel, moved only by its own traffic', () => {
  it('goes 8 of 8 in order, from its own events only, never red, and the pack names the proof', async () => {
    const publicUrl = bank!.ready.public!;
    expect(publicUrl, bank!.stderr()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(publicUrl).not.toBe(bank!.ready.bank);

    // History: notifications posted to the bank listener before the environment existed.
    const before = ROUTES.map(() => randomUUID());
    for (const [i, route] of ROUTES.entries()) {
      expect(
        await post(
          `${bank!.ready.bank}/api/svc/notify/${route}`,
          JSON.stringify({ transaction_id: before[i] }),
        ),
      ).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 1100)); // the environment is made strictly later

    const env = (await api('env.save', { name: 'Staging', base_url: service!.ready.sandbox })) as {
      id: string;
    };
    await api('env.activate', { id: env.id });

    const wt = new WalkthroughPageModel(page);
    await wt.open(bank!.ready.ui);
    const fresh = await noneRed(wt, 'on a new environment');
    // Nothing proves anything yet: not the notifications from before, nor the tunnel's own probe
    // of the public URL as it came up (also before the environment existed).
    expect(Object.entries(fresh).filter(([, st]) => st === 'done')).toEqual([]);
    expect(await wt.progress()).toBe(0);

    // 1. The key.
    expect((await wt.run('key')).ok).toBe(true);
    await wt.waitForState('key', 'done');

    // 2. The public URL first (the tunnel's), then the block to send, then the guid back.
    const block = wt.byTestId('wt-onboarding', wt.step('register'));
    expect(await block.locator('h3').allTextContents()).toEqual([
      '1. Your public URL',
      '2. What to send the service team',
      '3. The counterparty_guid they answer',
    ]);
    expect(await wt.byTestId('wt-onboarding-public-url', block).textContent()).toContain(publicUrl);
    const jwk = JSON.parse(await wt.onboardingValue('public_jwk')) as Record<string, unknown>;
    expect(Object.keys(jwk).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    const urls = {
      bank_auth_url: await wt.onboardingValue('bank_auth_url'),
      bank_sender_url: await wt.onboardingValue('bank_sender_url'),
      bank_receiver_url: await wt.onboardingValue('bank_receiver_url'),
    };
    expect(urls).toEqual({
      bank_auth_url: publicUrl,
      bank_sender_url: publicUrl,
      bank_receiver_url: publicUrl,
    });
    expect(await wt.onboardingValue('notify_prefix')).toBe('/api/svc/notify');
    // The service team's side: the block in, a counterparty_guid out.
    const onboarded = (await svc('sandbox.onboard', { jwk, ...urls })) as { counterparty_guid: string };
    expect((await wt.run('register', onboarded.counterparty_guid)).ok).toBe(true);
    await wt.waitForState('register', 'done');

    // 3–4. Compose and authenticate against the service.
    for (const id of ['compose', 'authenticate'] as const) {
      const r = await wt.run(id);
      expect(r.ok, `${id}: ${r.message}`).toBe(true);
      await wt.waitForState(id, 'done');
    }
    await noneRed(wt, 'after authenticate');

    // Sandbox traffic in between: the built-in sandbox onboards the same key, signs in the same
    // obj/sub with the walkthrough's own bank JWT, and notifies; then its callback is replayed.
    const state = (await api('walkthrough.state')) as { composed: { token: string }; obj: string };
    const own = bank!.ready.bank!;
    const local = (await api('sandbox.onboard', {
      jwk,
      bank_auth_url: own,
      bank_sender_url: own,
      bank_receiver_url: own,
    })) as { counterparty_guid: string };
    const stored = (
      (await api('events.query', { kind: 'callback', path: '/user_auth', limit: 1 })) as { total: number }
    ).total;
    const localSignIn = (await api('sandbox.signIn', {
      counterparty_guid: local.counterparty_guid,
      token: state.composed.token,
    })) as { ok: boolean };
    expect(localSignIn.ok).toBe(true);
    const sandboxTx = (await notifyEach(api, local.counterparty_guid)).map((n) => n.transaction_id);
    await callbacksStored(stored, 1);
    const sandboxCallback = (
      (await api('events.query', { kind: 'callback', path: '/user_auth', limit: 1 })) as {
        events: Array<{ id: string }>;
      }
    ).events[0]!;
    await api('bank.replay', { id: sandboxCallback.id });
    await callbacksStored(stored, 2);
    await wt.open(bank!.ready.ui);
    let states = await noneRed(wt, 'after the sandbox traffic and the replay');
    expect(states['sign-in']).not.toBe('done');
    expect(states.notifications).not.toBe('done');

    // 5. The test from outside, through the tunnel.
    const probed = await wt.run('callbacks');
    expect(probed.ok, probed.message).toBe(true);
    await wt.waitForState('callbacks', 'done');

    // 6. Started by the service team: the page says so and offers the message.
    expect(await wt.state('sign-in')).toBe('waiting');
    expect(await wt.byTestId('wt-request-who-sign-in', wt.step('sign-in')).textContent()).toMatch(
      /^The service team/,
    );
    expect(await wt.serviceRequest('sign-in')).toContain(`GET ${publicUrl}/user_auth`);
    const signIn = (await svc('sandbox.signIn', {
      counterparty_guid: onboarded.counterparty_guid,
      token: state.composed.token,
    })) as { ok: boolean; trace: unknown };
    expect(signIn.ok, JSON.stringify(signIn.trace)).toBe(true);
    await wt.waitForState('sign-in', 'done');

    // 7. The service's notifications, through the tunnel.
    expect(await wt.serviceRequest('notifications')).toContain(`${publicUrl}/api/svc/notify/pay-in`);
    const sent = await notifyEach(svc, onboarded.counterparty_guid);
    for (const n of sent) expect(n.url.startsWith(`${publicUrl}/api/svc/notify/`)).toBe(true);
    const serviceTx = sent.map((n) => n.transaction_id);
    await wt.waitForState('notifications', 'done');
    await noneRed(wt, 'after the service’s notifications');

    // 8. Rotation through the service's PUT.
    const rotated = await wt.run('rotate');
    expect(rotated.ok, rotated.message).toBe(true);
    await wt.waitForState('rotate', 'done');
    states = await noneRed(wt, 'at the end');
    expect(Object.values(states)).toEqual(Array(8).fill('done'));

    // The evidence pack: each step's proof, the service's events and never the others.
    const { text } = await wt.exportPack();
    const pack = JSON.parse(text) as {
      steps: Array<{
        id: WalkthroughStepId;
        state: string;
        at: string | null;
        proved_by: Array<{ kind: string; id: string; at: string | null; what: string }>;
      }>;
      events: Array<{ id: string; transaction_id: string | null }>;
    };
    expect(pack.steps.map((s) => s.state)).toEqual(Array(8).fill('done'));
    expectDoneStepsProven(pack.steps);
    const proof = (id: WalkthroughStepId) => pack.steps.find((s) => s.id === id)!.proved_by;
    const signInProof = proof('sign-in');
    expect(signInProof.map((p) => p.kind)).toEqual(['callback']);
    expect(signInProof[0]!.id).not.toBe(sandboxCallback.id);
    const noteIds = proof('notifications').map((p) => p.id);
    const noteTx = pack.events.filter((e) => noteIds.includes(e.id)).map((e) => e.transaction_id);
    expect(noteTx.sort()).toEqual([...serviceTx].sort());
    for (const tx of [...before, ...sandboxTx]) expect(noteTx).not.toContain(tx);
    expect(proof('callbacks')[0]).toMatchObject({ kind: 'probe from outside' });
    expect(proof('callbacks')[0]!.id.startsWith(`${publicUrl}/`)).toBe(true);
    expect(proof('authenticate').map((p) => p.kind)).toContain('exchange');

    // The walkthrough's customer is the environment's default: Composer, Service → Authenticate
    // and Conformance start filled with it (issue 26 item 3).
    const { obj, sub } = (await api('walkthrough.state')) as { obj: string; sub: string };
    await wt.goTo('composer', 'composer-page');
    expect(await page.locator('[data-testid="composer-obj"]').inputValue()).toBe(obj);
    expect(await page.locator('[data-testid="composer-sub"]').inputValue()).toBe(sub);
    await wt.goTo('service', 'service-page');
    expect(await page.locator('#auth-obj').inputValue()).toBe(obj);
    expect(await page.locator('#auth-sub').inputValue()).toBe(sub);
    await wt.goTo('conformance', 'conformance-page');
    expect(await page.locator('[data-testid="conformance-obj"]').inputValue()).toBe(obj);
    expect(await page.locator('#cf-sub').inputValue()).toBe(sub);

    expect(problems).toEqual([]);
  }, 240_000);
});
