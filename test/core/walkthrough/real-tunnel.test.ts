/**
 * Issue 14 item 5: the walkthrough against a "real" environment whose service is the sandbox
 * behind a tunnel. Two consoles on real parts: one runs only its sandbox (the "real service",
 * reached only through the environment's URLs and its own API); the other has a real environment
 * pointing at it, and its bank endpoints exposed through a real `ssh -R` tunnel to a test-started
 * sshd on 127.0.0.1 (test/cli/support/sshd.ts). The service is given the public URL the
 * walkthrough shows; its callbacks and notifications come in through the tunnel and turn the
 * steps green; with forward mode on, a backend (node:http on 127.0.0.1:0) gets the callback and
 * the console judges it while the service judges the answer. Also: a public URL where nothing
 * listens fails the test from outside, and nothing goes green. Every process is stopped by PID.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MethodOutput } from '../../../electron/contract';
import type { StepId } from '../../../electron/contract/schemas/walkthrough';
import type { ConsoleCore } from '../../../electron/core/console-core';
import { sshFixture, type SshFixture } from '../../cli/support/sshd';
import { alive } from '../../cli/support/until';
import { freePort } from '../../support/free-port';
import { call, closeAll, newDataDir, openCore } from './harness';

type State = MethodOutput<'walkthrough.state'>;
const stateOf = (s: State, id: StepId) => s.steps.find((x) => x.id === id)!;
const run = (core: ConsoleCore, step: StepId, extra: Record<string, unknown> = {}) =>
  call(core, 'walkthrough.run', { step, ...extra });

/** Polls the walkthrough until `id` is in `want` (bounded: 100 tries, 100 ms apart). */
async function stepBecomes(core: ConsoleCore, id: StepId, want: string): Promise<State> {
  let last: State | undefined;
  for (let i = 0; i < 100; i++) {
    await (await core.store()).flush();
    last = await call(core, 'walkthrough.state');
    if (stateOf(last, id).state === want) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`step ${id} stayed ${last ? JSON.stringify(stateOf(last, id)) : 'unknown'}`);
}

/**
 * The "real service" (a console running only its sandbox) and the console under test with a real
 * environment pointing at it, its key registered there and a bank JWT checked by authenticate.
 */
async function consoles(extra: { env?: NodeJS.ProcessEnv; publicUrl?: string } = {}) {
  const service = await openCore(await newDataDir());
  const sandbox = await service.listenSandbox({ host: '127.0.0.1', port: 0 });
  const core = await openCore(await newDataDir(), extra);
  const bank = await core.listenBank({ host: '127.0.0.1', port: 0 });
  const staging = await call(core, 'env.save', { name: 'Staging', base_url: sandbox.url });
  await call(core, 'env.activate', { id: staging.id });

  await run(core, 'key');
  const kid = (await call(core, 'walkthrough.state')).environment.active_kid!;
  const jwk = JSON.parse((await call(core, 'keys.export', { kid, format: 'jwk' })).text);
  // The service's onboarding (its side): the public JWK in, a counterparty_guid out.
  const { counterparty_guid: guid } = await call(service, 'sandbox.onboard', { jwk });
  expect(stateOf((await run(core, 'register', { counterparty_guid: guid })).state, 'register').state).toBe(
    'done',
  );
  expect(stateOf((await run(core, 'compose')).state, 'compose').state).toBe('done');
  expect(stateOf((await run(core, 'authenticate')).state, 'authenticate').state).toBe('done');
  return { service, core, bank, guid };
}

/** The engineer's backend for forward mode: records what reaches it; `bad` leaves out phone. */
async function backend() {
  const seen: { method: string; url: string; session: string | undefined }[] = [];
  let bad = false;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        session: req.headers['x-session-id'] as string,
      });
      if ((req.url ?? '').startsWith('/user_auth')) {
        const user = {
          external_id: 'backend-customer-0001',
          key: 'backend-user-key',
          phone: '+4915100000001',
        };
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(bad ? { external_id: user.external_id, key: user.key } : user));
      } else {
        res.writeHead(200);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    misbehave: () => {
      bad = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let sshd: SshFixture;
let closeBackend: (() => Promise<void>) | null = null;
beforeAll(async () => {
  sshd = await sshFixture(path.join(await newDataDir(), 'sshd'), await freePort());
  await sshd.start();
});
afterEach(async () => {
  await closeBackend?.();
  closeBackend = null;
  await closeAll();
});
afterAll(async () => {
  await sshd?.kill();
});

describe('the walkthrough against a real environment whose service is the sandbox behind a tunnel', () => {
  it('shows the public URL to register, probes it before the callback steps, turns green from the service’s calls through the tunnel, and judges a forward target', async () => {
    const { service, core, bank, guid } = await consoles({
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DETS_SSH_COMMAND: sshd.sshCommand },
    });

    // No public URL yet: the listener's own URL, with why the service cannot use it.
    let state = await call(core, 'walkthrough.state');
    expect(state.reach).toMatchObject({ public_url: null, bank_auth_url: bank.url });
    expect(state.reach?.warning).toMatch(/cannot reach/);
    expect(stateOf(state, 'sign-in').state).toBe('pending');

    // The tunnel (ssh -R through the test's sshd): its public URL is what to register.
    const tunnel = await call(core, 'tunnel.start', { target: `ssh:root@127.0.0.1:${sshd.port}` });
    expect(tunnel.tunnel, sshd.log).toMatchObject({ client: 'ssh', state: 'up' });
    const pub = tunnel.public_url!;
    expect(pub).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(pub).not.toBe(bank.url);
    state = await call(core, 'walkthrough.state');
    expect(state.bank_url).toBe(pub);
    expect(state.reach).toMatchObject({
      public_url: pub,
      public_url_source: 'tunnel',
      bank_auth_url: pub,
      notification_urls: ['pay-in', 'pay-out', 'transfer'].map((r) => `${pub}/api/svc/notify/${r}`),
      warning: null,
    });
    expect(stateOf(state, 'callbacks').facts).toContainEqual({ label: 'bank_auth_url', value: pub });

    // Step 5 is the tunnel's probe from outside: it passes through the tunnel before any callback.
    const probed = await run(core, 'callbacks');
    expect(probed.ok, probed.message).toBe(true);
    expect(probed.message).toMatch(/received the marker sent to/);
    expect(probed.state.reach?.probe).toMatchObject({ outcome: 'reachable', status: 200 });
    expect(probed.state.reach?.probe?.url?.startsWith(`${pub}/.well-known/dets-console/probe/`)).toBe(true);
    expect(stateOf(probed.state, 'callbacks')).toMatchObject({ state: 'done' });
    expect(stateOf(probed.state, 'sign-in').state).toBe('waiting');
    expect(stateOf(probed.state, 'notifications').state).toBe('waiting');

    // The service is given the URL the walkthrough shows (its side), and runs its sign-in.
    await call(service, 'sandbox.updateCounterparty', {
      counterparty_guid: guid,
      bank_auth_url: probed.state.reach!.bank_auth_url,
      bank_sender_url: pub,
      bank_receiver_url: pub,
    });
    const waiting = await run(core, 'sign-in');
    expect(waiting.ok).toBe(true);
    expect(waiting.message).toMatch(/^reachable from outside in [\d.]+ ms; waiting for the service/);
    const signIn = await call(service, 'sandbox.signIn', {
      counterparty_guid: guid,
      token: waiting.state.composed!.token,
    });
    expect(signIn.ok, JSON.stringify(signIn.trace)).toBe(true);
    expect(signIn.trace.steps.find((s) => s.id === 'bank_url')?.detail).toBe(`calling GET ${pub}/user_auth`);
    state = await stepBecomes(core, 'sign-in', 'done');
    expect(stateOf(state, 'sign-in').summary).toMatch(/every check passed and the bank answered 200/);

    // Its notifications, each to the public URL.
    for (const event of ['pay-in', 'pay-out', 'transfer'] as const) {
      const sent = await call(service, 'sandbox.notify', {
        counterparty_guid: guid,
        event,
        ...(event === 'transfer' ? { to: 'receiver' as const } : {}),
      });
      expect(sent).toMatchObject({ status: 200 });
      expect(sent.url.startsWith(`${pub}/api/svc/notify/`)).toBe(true);
    }
    state = await stepBecomes(core, 'notifications', 'done');

    // Forward mode, switched on from the walkthrough (the bank's setting): the service's callback
    // reaches the engineer's backend through the console, which judges it; the service judges
    // the answer it gets back.
    const target = await backend();
    closeBackend = target.close;
    await call(core, 'bank.setForward', { url: target.url });
    expect((await call(core, 'walkthrough.state')).reach?.forward_url).toBe(target.url);
    const forwarded = await call(service, 'sandbox.signIn', {
      counterparty_guid: guid,
      token: state.composed!.token,
    });
    expect(forwarded.ok, JSON.stringify(forwarded.trace)).toBe(true);
    expect(forwarded.user).toMatchObject({ external_id: 'backend-customer-0001' });
    expect(target.seen).toHaveLength(1);
    expect(target.seen[0]).toMatchObject({ method: 'GET', url: '/user_auth' });
    expect(target.seen[0]!.session).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    await (await core.store()).flush();
    const newest = (await call(core, 'events.query', { kind: 'callback', path: '/user_auth', limit: 1 }))
      .events[0]!;
    const detail = await call(core, 'events.get', { id: newest.id });
    expect(detail.forward).toMatchObject({ url: `${target.url}/user_auth`, status: 200, error: null });
    expect(detail.forward!.verdicts.length).toBeGreaterThan(0);
    expect(detail.forward!.verdicts.every((v) => v.status !== 'failed')).toBe(true);
    expect(stateOf(await call(core, 'walkthrough.state'), 'sign-in').state).toBe('done');

    // A backend that leaves out phone: both sides say so, and the step says why.
    target.misbehave();
    const judged = await call(service, 'sandbox.signIn', {
      counterparty_guid: guid,
      token: state.composed!.token,
    });
    expect(judged).toMatchObject({ ok: false, failed: 'phone' });
    state = await stepBecomes(core, 'sign-in', 'failed');
    // One verdict (issue 24): the callback's own failed check is the judge's on the target's answer.
    expect(stateOf(state, 'sign-in').reason).toBe(
      "check phone failed: phone missing (the forward target's answer)",
    );

    // The tunnel's client is stopped, by the console, with it.
    const pid = (await call(core, 'tunnel.status')).tunnel!.pid!;
    expect(alive(pid)).toBe(true);
    await call(core, 'tunnel.stop');
    expect(alive(pid)).toBe(false);
  }, 120_000);

  it('fails the test from outside where nothing listens at the public URL, and nothing turns green', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const { service, core, guid } = await consoles({ publicUrl: nowhere });

    let state = await call(core, 'walkthrough.state');
    expect(state.reach).toMatchObject({
      public_url: nowhere,
      public_url_source: 'flag',
      bank_auth_url: nowhere,
    });

    const probed = await run(core, 'callbacks');
    expect(probed.ok).toBe(false);
    expect(probed.state.reach?.probe).toMatchObject({ outcome: 'unreachable' });
    const step5 = stateOf(probed.state, 'callbacks');
    expect(step5.state).toBe('failed');
    expect(step5.reason).toMatch(new RegExp(`nothing answered at ${nowhere.replace(/\./g, '\\.')}`));
    expect(step5.fix).toMatch(/Start the tunnel/);

    // The sign-in step probes first and does not claim to wait for a service that cannot call.
    const signInStep = await run(core, 'sign-in');
    expect(signInStep.ok).toBe(false);
    expect(signInStep.message).toMatch(/^the service cannot reach the bank endpoints yet: nothing answered/);
    expect(stateOf(signInStep.state, 'sign-in')).toMatchObject({ state: 'pending', needs: 'callbacks' });

    // The service, given that URL, cannot reach the bank: no step turns green from it.
    await call(service, 'sandbox.updateCounterparty', {
      counterparty_guid: guid,
      bank_auth_url: nowhere,
      bank_receiver_url: nowhere,
    });
    const failed = await call(service, 'sandbox.signIn', {
      counterparty_guid: guid,
      token: signInStep.state.composed!.token,
    });
    expect(failed).toMatchObject({ ok: false, failed: 'reachable' });
    await (await core.store()).flush();
    state = await call(core, 'walkthrough.state');
    expect(stateOf(state, 'callbacks').state).toBe('failed');
    expect(stateOf(state, 'sign-in').state).toBe('pending');
    expect(stateOf(state, 'notifications').state).toBe('pending');
  }, 60_000);
});
