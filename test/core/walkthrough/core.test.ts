/**
 * The walkthrough through the real core: createConsoleCore on a fresh data directory, the
 * sandbox and the bank endpoints listening on 127.0.0.1:0, real keys in the vault, real HTTP
 * between them. Each step's action is run in order and each step turns done only after it;
 * one step fails on purpose (a key the service does not know); progress survives a restart;
 * a reset ignores what came before; the evidence pack is redacted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MethodOutput } from '../../../electron/contract';
import type { StepId } from '../../../electron/contract/schemas/walkthrough';
import type { ConsoleCore } from '../../../electron/core/console-core';
import { call, closeAll, forget, newDataDir, openCore } from './harness';

type State = MethodOutput<'walkthrough.state'>;

afterEach(closeAll);

async function start(dataDir: string): Promise<ConsoleCore> {
  const core = await openCore(dataDir);
  await core.listenSandbox({ host: '127.0.0.1', port: 0 });
  await core.listenBank({ host: '127.0.0.1', port: 0 });
  return core;
}

const stateOf = (s: State, id: StepId) => s.steps.find((x) => x.id === id)!;
const states = (s: State) => Object.fromEntries(s.steps.map((x) => [x.id, x.state]));

async function run(core: ConsoleCore, step: StepId, extra: Record<string, unknown> = {}) {
  return call(core, 'walkthrough.run', { step, ...extra });
}

describe('the walkthrough against the sandbox, through the core', () => {
  it('completes all eight steps by their actions, each proven by its event', async () => {
    const dataDir = await newDataDir();
    let core = await start(dataDir);

    const fresh = await call(core, 'walkthrough.state');
    expect(fresh.environment).toMatchObject({ id: 'sandbox', kind: 'sandbox' });
    expect(fresh.steps.map((s) => s.state)).toEqual(Array(8).fill('pending'));
    expect(fresh.done).toBe(0);

    // One step failed on purpose: authenticate before anything is registered.
    await run(core, 'key');
    const early = await run(core, 'authenticate');
    expect(early.ok).toBe(false);
    expect(stateOf(early.state, 'authenticate')).toMatchObject({ state: 'failed', needs: 'register' });
    expect(stateOf(early.state, 'authenticate').reason).toMatch(/counterparty_guid/);
    expect(stateOf(early.state, 'authenticate').fix).toMatch(/Register the key first/);

    const order: StepId[] = [
      'register',
      'compose',
      'authenticate',
      'callbacks',
      'sign-in',
      'notifications',
      'rotate',
    ];
    let previous = await call(core, 'walkthrough.state');
    expect(stateOf(previous, 'key').state).toBe('done');
    for (const step of order) {
      expect(stateOf(previous, step).state, `${step} before its action`).not.toBe('done');
      const result = await run(core, step);
      expect(result.ok, `${step}: ${result.message}`).toBe(true);
      expect(
        stateOf(result.state, step).state,
        `${step} after its action: ${stateOf(result.state, step).summary}`,
      ).toBe('done');
      previous = result.state;
      if (step === 'authenticate') {
        // The session_token, decoded and checked against the sandbox's JWKS in place.
        expect(stateOf(previous, step).facts.map((f) => f.label)).toContain('session_token checks');
        expect(previous.session?.report?.ok).toBe(true);
      }
    }
    expect(previous.done).toBe(8);
    expect(stateOf(previous, 'rotate').summary).toMatch(/^Rotated from/);

    // The events really exist: a passed /user_auth and one stored notification per route.
    const store = await core.store();
    const callbacks = await store.query({ kind: 'callback', path: '/user_auth' });
    expect(callbacks.events.some((e) => e.status === 200 && e.failed_check === null)).toBe(true);
    const notes = await store.query({ kind: 'notification' });
    expect(notes.events.map((e) => e.path?.split('/').pop()).sort()).toEqual([
      'pay-in',
      'pay-out',
      'transfer',
    ]);

    // The pack: redacted, with fingerprints and public JWKs.
    const secret = (await (await core.bank()).exportCustomers())[0]!.key;
    const pack = await call(core, 'walkthrough.exportPack');
    expect(pack.filename).toMatch(/^dets-walkthrough-sandbox-\d{4}-\d{2}-\d{2}\.json$/);
    expect(pack.text.includes(secret), 'the customer secret key is in the pack').toBe(false);
    expect(pack.text).not.toContain('PRIVATE KEY');
    expect(pack.text).not.toMatch(/"(d|p|q|dp|dq|qi)":/);
    const parsed = JSON.parse(pack.text) as {
      keys: Array<{ kid: string; fingerprint: { value: string }; public_jwk: Record<string, unknown> }>;
      steps: Array<{ state: string }>;
      tokens: { bank_jwt: { token: string; payload: { flow: string } } };
      markdown: string;
    };
    expect(parsed.steps.map((s) => s.state)).toEqual(Array(8).fill('done'));
    const keys = await core.services.keys().list();
    for (const k of parsed.keys) {
      expect(k.fingerprint.value).toBe(keys.find((x) => x.kid === k.kid)!.fingerprint);
      expect(Object.keys(k.public_jwk).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    }
    expect(parsed.tokens.bank_jwt.payload.flow).toBe('sign-in');
    expect(parsed.tokens.bank_jwt.token).toMatch(/^eyJ[^.]*\.eyJ[^.]*\.[A-Za-z0-9_-]{8}…$/);
    expect(parsed.markdown).toMatch(/8 of 8 steps done/);

    // A restart on other ports: the progress is still there; the sandbox must learn the new bank URL.
    await core.close();
    forget(core);
    core = await start(dataDir);
    const again = await call(core, 'walkthrough.state');
    expect(states(again)).toMatchObject({
      key: 'done',
      register: 'done',
      compose: 'done',
      authenticate: 'done',
      'sign-in': 'done',
      notifications: 'done',
      rotate: 'done',
    });
    expect(stateOf(again, 'callbacks').state).toBe('pending');
    expect(stateOf(again, 'callbacks').summary).toMatch(/but the sandbox has bank_auth_url/);
    expect(stateOf(await run(core, 'callbacks').then((r) => r.state), 'callbacks').state).toBe('done');

    // Reset: the events before it are ignored; the key and the registration stay.
    const reset = await call(core, 'walkthrough.reset');
    expect(states(reset)).toEqual({
      key: 'done',
      register: 'done',
      compose: 'pending',
      authenticate: 'pending',
      callbacks: 'done',
      'sign-in': 'pending',
      notifications: 'pending',
      rotate: 'pending',
    });
    const signIn = await run(core, 'sign-in');
    expect(stateOf(signIn.state, 'sign-in').state).toBe('done');
  });

  it('explains a 401 for a key the service does not know, and turns green once it is registered', async () => {
    const dataDir = await newDataDir();
    const core = await start(dataDir);
    await run(core, 'key');
    await run(core, 'register');
    expect(stateOf((await run(core, 'authenticate')).state, 'authenticate').state).toBe('done');

    // A new key, active but not registered: the service refuses it.
    const second = await run(core, 'key');
    const kid = second.state.environment.active_kid!;
    expect(stateOf(second.state, 'register').state).toBe('pending');
    expect(stateOf(second.state, 'authenticate').state).toBe('pending');
    const refused = await run(core, 'authenticate');
    expect(refused.ok).toBe(false);
    const step = stateOf(refused.state, 'authenticate');
    expect(step.state).toBe('failed');
    expect(step.reason).toMatch(new RegExp(`^the service answered 401: kid "${kid}" is not registered`));
    expect(step.fix).toMatch(/^Register the JWK first: run step 2/);

    // Registering it (PUT, signed by the first key) and authenticating again fixes it.
    const registered = await run(core, 'register');
    expect(registered.message).toMatch(/PUT/);
    expect(stateOf(registered.state, 'register').state).toBe('done');
    expect(stateOf((await run(core, 'authenticate')).state, 'authenticate').state).toBe('done');
  });

  it('on a real environment, waits for the service’s part and says what for', async () => {
    // The "real" service here is the sandbox under another name: the console talks to it only
    // through the environment's URLs, and its onboarding and sign-in are done on "its side".
    const dataDir = await newDataDir();
    const core = await start(dataDir);
    const sandboxUrl = (await call(core, 'sandbox.status')).url!;
    const staging = await call(core, 'env.save', { name: 'Staging', base_url: sandboxUrl });
    await call(core, 'env.activate', { id: staging.id });

    await run(core, 'key');
    let state = await call(core, 'walkthrough.state');
    expect(state.environment).toMatchObject({ id: staging.id, kind: 'real' });
    expect(stateOf(state, 'register')).toMatchObject({ state: 'waiting', action_input: 'counterparty_guid' });
    // Not reachable from outside yet: nothing claims to wait for the service.
    expect(stateOf(state, 'sign-in').state).toBe('pending');
    expect(stateOf(state, 'notifications').state).toBe('pending');

    // No GUID typed: the step says what it needs.
    const missing = await run(core, 'register');
    expect(missing.ok).toBe(false);
    expect(stateOf(missing.state, 'register').reason).toMatch(/enter the counterparty_guid/);

    // The service's onboarding form takes the exported public JWK and answers a GUID.
    const jwk = JSON.parse(
      (await call(core, 'keys.export', { kid: state.environment.active_kid, format: 'jwk' })).text,
    );
    const onboarded = await call(core, 'sandbox.onboard', { jwk });
    state = (await run(core, 'register', { counterparty_guid: onboarded.counterparty_guid })).state;
    expect(stateOf(state, 'register').state).toBe('done');
    for (const step of ['compose', 'authenticate'] as const) {
      expect(stateOf((await run(core, step)).state, step).state).toBe('done');
    }

    // No public URL yet: the listener's URL, with the reason the service cannot use it.
    const bankUrl = (await call(core, 'bank.status')).url!;
    expect(state.reach).toMatchObject({ public_url: null, bank_auth_url: bankUrl });
    expect(state.reach?.warning).toMatch(/loopback address, which the service cannot reach/);

    // The test from outside (the tunnel's probe): refused where nothing listens, passed through the listener.
    const bad = await run(core, 'callbacks', { bank_url: 'http://127.0.0.1:9/' });
    expect(stateOf(bad.state, 'callbacks')).toMatchObject({ state: 'failed' });
    expect(stateOf(bad.state, 'callbacks').reason).toMatch(/nothing answered at http:\/\/127\.0\.0\.1:9/);
    expect(bad.state.reach).toMatchObject({
      public_url: 'http://127.0.0.1:9',
      public_url_source: 'environment',
    });
    const good = await run(core, 'callbacks', { bank_url: bankUrl });
    expect(stateOf(good.state, 'callbacks').state).toBe('done');
    expect(stateOf(good.state, 'callbacks').summary).toMatch(/Reachable from outside/);
    expect(good.state.bank_url).toBe(bankUrl);

    // Sign-in and notifications happen on the service's side; the console only sees their events.
    state = (await run(core, 'sign-in')).state;
    expect(stateOf(state, 'sign-in').state).toBe('waiting');
    expect(stateOf(state, 'sign-in').waiting_for).toMatch(/GET \/user_auth with X-Session-ID/);
    await call(core, 'sandbox.updateCounterparty', {
      counterparty_guid: onboarded.counterparty_guid,
      bank_auth_url: bankUrl,
      bank_receiver_url: bankUrl,
    });
    const composed = state.composed!;
    const signIn = await call(core, 'sandbox.signIn', {
      counterparty_guid: onboarded.counterparty_guid,
      token: composed.token,
    });
    expect(signIn.ok).toBe(true);
    await core.store().then((s) => s.flush());
    await expect
      .poll(async () => stateOf(await call(core, 'walkthrough.state'), 'sign-in').state, { timeout: 5000 })
      .toBe('done');

    await call(core, 'sandbox.notify', { counterparty_guid: onboarded.counterparty_guid, event: 'pay-in' });
    const notes = stateOf(await call(core, 'walkthrough.state'), 'notifications');
    expect(notes).toMatchObject({
      state: 'waiting',
      summary:
        'Received pay-in; waiting for pay-out, transfer from the service: the service team sends them on their side.',
    });
  });

  it('fails the rotation while the service is unreachable, and resumes it with the same next key', async () => {
    const core = await openCore(await newDataDir());
    const sandbox = await core.listenSandbox({ host: '127.0.0.1', port: 0 });
    await core.listenBank({ host: '127.0.0.1', port: 0 });
    for (const step of ['key', 'register', 'compose', 'authenticate'] as const) await run(core, step);
    const from = (await call(core, 'walkthrough.state')).environment.active_kid;

    // The service goes away: the rotation stops at its registration, the old key still active.
    await sandbox.close();
    const failed = await run(core, 'rotate');
    expect(failed.ok).toBe(false);
    const step = stateOf(failed.state, 'rotate');
    expect(step.state).toBe('failed');
    expect(step.summary).toMatch(/stopped at "Register it with the service/);
    expect(step.reason).toMatch(/could not be reached|ECONNREFUSED|refused/i);
    expect(failed.state.environment.active_kid).toBe(from);
    const next = (await core.services.keys().list()).find((k) => k.status === 'next')!;

    // Back (on another port: the sandbox environment follows it), the same next key is used.
    await core.listenSandbox({ host: '127.0.0.1', port: 0 });
    const resumed = await run(core, 'rotate');
    expect(resumed.ok, resumed.message).toBe(true);
    expect(stateOf(resumed.state, 'rotate').state).toBe('done');
    expect(resumed.state.environment.active_kid).toBe(next.kid);
    expect((await core.services.keys().list()).filter((k) => k.status === 'next')).toEqual([]);
  });
});
