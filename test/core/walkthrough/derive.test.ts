/**
 * The walkthrough's step states, derived from facts alone (issue 6): a step is done only when the
 * event that proves it exists, failed (with the reason and the fix) when its latest attempt
 * failed, pending otherwise, waiting when the service's part is missing; a reset ignores events
 * before it.
 */
import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '../../../electron/contract/schemas/tunnel';
import type {
  StepId,
  WalkthroughReach,
  WalkthroughStep,
} from '../../../electron/contract/schemas/walkthrough';
import { deriveSteps, type WalkthroughFacts } from '../../../electron/core/walkthrough/derive';
import {
  BANK,
  GUID,
  NOW,
  OBJ,
  SUB,
  counterparty,
  env,
  exchange,
  facts,
  key,
  userAuthCallback,
  signInTrace,
  t,
} from './fixtures';

const byId = (steps: WalkthroughStep[]) =>
  Object.fromEntries(steps.map((s) => [s.id, s])) as Record<StepId, WalkthroughStep>;
const states = (f: WalkthroughFacts) => deriveSteps(f, NOW).map((s) => `${s.number}:${s.state}`);

/** Every step proven, on the sandbox, in order. */
function complete(over: Partial<WalkthroughFacts> = {}): WalkthroughFacts {
  return facts({
    env: env({ active_kid: 'k2' }),
    keys: [key('54321', { status: 'retired' }), key('k2', { created_at: t(30) })],
    sandbox: { counterparty: counterparty(['54321', 'k2']), error: null },
    composed: {
      at: t(5),
      kid: '54321',
      obj: OBJ,
      sub: SUB,
      token: 'eyJh.eyJw.sig',
      header: { alg: 'RS256', kid: '54321' },
      payload: { flow: 'sign-in', obj: OBJ, sub: SUB, iat: 1, exp: 2 },
    },
    exchanges: [
      exchange(t(31), { signing_kid: 'k2' }),
      exchange(t(30), { operation: 'update-jwk', jwk_kid: 'k2', body: '{}' }),
      exchange(t(6)),
    ],
    callbacks: [userAuthCallback('e1', t(10))],
    traces: [signInTrace(t(10), true)],
    notifications: (['pay-in', 'pay-out', 'transfer'] as const).map((route, i) => ({
      id: `n${i}`,
      at: t(20 + i),
      route,
      status: 200,
      outcome: 'accepted' as const,
      transaction_id: crypto.randomUUID(),
    })),
    rotation: {
      environment_id: 'sandbox',
      from_kid: '54321',
      to_kid: 'k2',
      state: 'done',
      steps: [],
      started_at: t(29),
      finished_at: t(31),
    },
    ...over,
  });
}

describe('deriveSteps', () => {
  it('starts with every step pending on a fresh sandbox profile, each naming the step it needs', () => {
    const steps = deriveSteps(facts(), NOW);
    expect(steps.map((s) => s.id)).toEqual([
      'key',
      'register',
      'compose',
      'authenticate',
      'callbacks',
      'sign-in',
      'notifications',
      'rotate',
    ]);
    expect(steps.every((s) => s.state === 'pending')).toBe(true);
    const s = byId(steps);
    expect(s.key.needs).toBeNull();
    expect(s.register.needs).toBe('key');
    expect(s.authenticate.needs).toBe('register');
    expect(s['sign-in'].needs).toBe('callbacks');
    expect(s.key.action).toBe('Create the signing key');
    expect(s.register.spec).toMatch(/spec 5\.2/);
    expect(s['sign-in'].explanation).toMatch(/X-Session-ID/);
  });

  it('turns every step done from the events that prove them', () => {
    const steps = deriveSteps(complete(), NOW);
    expect(steps.map((s) => `${s.number}:${s.state}`)).toEqual([
      '1:done',
      '2:done',
      '3:done',
      '4:done',
      '5:done',
      '6:done',
      '7:done',
      '8:done',
    ]);
    const s = byId(steps);
    expect(s.key.facts).toContainEqual({ label: 'fingerprint (RFC 7638)', value: 'thumb-k2' });
    expect(s.register.facts).toContainEqual({ label: 'counterparty_guid', value: GUID });
    expect(s['sign-in'].event_ids).toEqual(['e1']);
    expect(s.notifications.event_ids).toEqual(['n0', 'n1', 'n2']);
    expect(s.rotate.summary).toMatch(/from "54321" to "k2"/);
    expect(steps.every((x) => x.reason === null && x.needs === null)).toBe(true);
  });

  it('on a real environment every step proven carries its time, for the evidence pack (issue 26 item 5)', () => {
    const PUBLIC = 'https://bank-dev.example.com';
    const real = env({
      id: 'e-real',
      name: 'Staging',
      kind: 'real',
      base_url: 'https://dets.staging.example',
      counterparty_guid: GUID,
      active_kid: 'k2',
      created_at: t(0),
    });
    const steps = deriveSteps(
      complete({
        env: real,
        sandbox: null,
        bankUrl: PUBLIC,
        reach: {
          public_url: PUBLIC,
          public_url_source: 'tunnel',
          bank_auth_url: PUBLIC,
          notification_urls: ['pay-in', 'pay-out', 'transfer'].map((r) => `${PUBLIC}/api/svc/notify/${r}`),
          warning: null,
          probe: {
            at: t(3),
            url: `${PUBLIC}/.well-known/dets-console/probe/0123456789abcdef0123456789abcdef`,
            outcome: 'reachable',
            rtt_ms: 12.5,
            status: 200,
            detail: 'this console received the marker',
          },
          forward_url: null,
        },
        rotation: { ...complete().rotation!, environment_id: 'e-real' },
      }),
      NOW,
    );
    const done = steps.filter((x) => x.state === 'done');
    // Steps 1-5 and 8 are proven here by facts alone (6 and 7 need the service's own traffic,
    // correlated: outside-traffic.test.ts); each one proven says when.
    expect(done.map((x) => x.number)).toEqual(expect.arrayContaining([1, 2, 3, 4, 5, 8]));
    for (const x of done) expect(x.at, `step ${x.number} (${x.id})`).not.toBeNull();
    // Step 2: when the environment holding the counterparty_guid was made.
    expect(byId(steps).register.at).toBe(t(0));
  });

  it('fails authenticate with the service’s words and the fix when the key is not registered', () => {
    const refused = exchange(t(7), {
      status: 401,
      body: '{"error":"unauthorized","detail":"kid \\"k2\\" is not registered for this counterparty (registered kids: 54321)"}',
      signing_kid: 'k2',
      explanation:
        'kid "k2", the environment\'s active key, is not registered for counterparty …: register it first',
    });
    const f = facts({
      env: env({ active_kid: 'k2' }),
      keys: [key('54321', { status: 'retired' }), key('k2')],
      sandbox: { counterparty: counterparty(['54321']), error: null },
      exchanges: [refused, exchange(t(6))],
    });
    const s = byId(deriveSteps(f, NOW));
    expect(s.authenticate.state).toBe('failed');
    expect(s.authenticate.reason).toBe(
      'the service answered 401: kid "k2" is not registered for this counterparty (registered kids: 54321)',
    );
    expect(s.authenticate.fix).toBe(
      'Register the JWK first: run step 2 (the console registers the active key with the sandbox), then authenticate again.',
    );
    expect(s.authenticate.event_ids).toEqual([refused.id]);
    // The cause shows on step 2 too: the active key is not among the registered ones.
    expect(s.register.state).toBe('pending');
    expect(s.register.summary).toMatch(/"k2" is not registered .*registered: 54321/);

    // A later 200 for the same key turns it green again: the latest attempt decides.
    const fixed = { ...f, exchanges: [exchange(t(9), { signing_kid: 'k2' }), refused] };
    expect(byId(deriveSteps(fixed, NOW)).authenticate.state).toBe('done');
  });

  it('fails the sign-in with the failed check and its fix, and the sandbox trace’s failed step', () => {
    const base = complete();
    const badObj = facts({
      ...base,
      callbacks: [
        userAuthCallback('e2', t(40), {
          status: 401,
          failed_check: 'obj',
          detail: 'obj is not a known customer',
          duration_ms: 3,
        }),
        ...base.callbacks,
      ],
      traces: [],
    });
    const s = byId(deriveSteps(badObj, NOW))['sign-in'];
    expect(s).toMatchObject({
      state: 'failed',
      reason: 'check obj failed: obj is not a known customer',
      event_ids: ['e2'],
    });
    expect(s.fix).toMatch(/test customers/);

    const unreachable = facts({
      ...base,
      traces: [
        signInTrace(t(41), false, { id: 'reachable', detail: 'could not reach the bank: ECONNREFUSED' }),
        ...base.traces,
      ],
    });
    const r = byId(deriveSteps(unreachable, NOW))['sign-in'];
    expect(r).toMatchObject({ state: 'failed', reason: 'could not reach the bank: ECONNREFUSED' });
    expect(r.fix).toMatch(/step 5/);
  });

  it('keeps an action that failed before any event as the step’s reason, until an event proves the step', () => {
    const f = facts({
      env: env({ counterparty_guid: null }),
      keys: [key()],
      attempts: {
        authenticate: {
          at: t(3),
          ok: false,
          reason: 'the sandbox environment has no counterparty_guid',
          fix: 'Register the key first (step 2)',
        },
      },
    });
    const s = byId(deriveSteps(f, NOW));
    expect(s.authenticate).toMatchObject({
      state: 'failed',
      reason: 'the sandbox environment has no counterparty_guid',
      fix: 'Register the key first (step 2)',
      needs: 'register',
    });
    const later = { ...f, env: env(), exchanges: [exchange(t(4))] };
    expect(byId(deriveSteps(later, NOW)).authenticate.state).toBe('done');
  });

  it('ignores every event before a reset, and keeps the key and the registration', () => {
    const reset = complete({ resetAt: t(45) });
    expect(states(reset)).toEqual([
      '1:done',
      '2:done',
      '3:pending',
      '4:pending',
      '5:done',
      '6:pending',
      '7:pending',
      '8:pending',
    ]);
    // Events after the reset count again.
    const after = complete({
      resetAt: t(45),
      exchanges: [exchange(t(46), { signing_kid: 'k2' })],
      callbacks: [userAuthCallback('e9', t(47), { duration_ms: 2 })],
    });
    const s = byId(deriveSteps(after, NOW));
    expect(s.authenticate.state).toBe('done');
    expect(s['sign-in'].state).toBe('done');
    expect(s.notifications.state).toBe('pending');
  });

  it('lists which notifications are still missing, and fails on a refused one', () => {
    const base = complete();
    const partial = { ...base, notifications: base.notifications.slice(0, 1) };
    const p = byId(deriveSteps(partial, NOW)).notifications;
    expect(p.state).toBe('pending');
    expect(p.summary).toBe('Received pay-in; not yet pay-out, transfer.');

    const rejected = {
      ...base,
      notifications: [
        {
          id: 'bad',
          at: t(50),
          route: 'pay-out' as const,
          status: 400,
          outcome: 'rejected' as const,
          transaction_id: null,
        },
        ...base.notifications,
      ],
    };
    const r = byId(deriveSteps(rejected, NOW)).notifications;
    expect(r).toMatchObject({ state: 'failed', reason: 'pay-out: answered 400 (rejected)' });
  });

  it('fails the rotation with the step that stopped it', () => {
    const f = complete({
      env: env(),
      keys: [key()],
      sandbox: { counterparty: counterparty(['54321']), error: null },
      exchanges: [exchange(t(6))],
      rotation: {
        environment_id: 'sandbox',
        from_kid: '54321',
        to_kid: 'k3',
        state: 'failed',
        steps: [
          {
            id: 'generate',
            title: 'Generate the next key',
            status: 'passed',
            detail: 'generated',
            exchange_id: null,
          },
          {
            id: 'register',
            title: 'Register it with the service',
            status: 'failed',
            detail: 'PUT … answered 401',
            exchange_id: 'x9',
          },
        ],
        started_at: t(40),
        finished_at: t(41),
      },
    });
    const r = byId(deriveSteps(f, NOW)).rotate;
    expect(r).toMatchObject({ state: 'failed', reason: 'PUT … answered 401', event_ids: ['x9'] });
    expect(r.fix).toMatch(/resumes with the same next key/);
  });

  it('waits for the service on a real environment, and says what for', () => {
    const real = env({
      id: 'e-real',
      name: 'Staging',
      kind: 'real',
      base_url: 'https://dets.staging.example',
      counterparty_guid: null,
    });
    const PUBLIC = 'https://bank-dev.example.com';
    const reach = (over: Partial<WalkthroughReach> = {}): WalkthroughReach => ({
      public_url: PUBLIC,
      public_url_source: 'tunnel',
      bank_auth_url: PUBLIC,
      notification_urls: ['pay-in', 'pay-out', 'transfer'].map((r) => `${PUBLIC}/api/svc/notify/${r}`),
      warning: null,
      probe: null,
      forward_url: null,
      ...over,
    });
    const probe = (over: Partial<ProbeResult>): ProbeResult => ({
      at: t(3),
      url: `${PUBLIC}/.well-known/dets-console/probe/0123456789abcdef0123456789abcdef`,
      outcome: 'reachable',
      rtt_ms: 12.5,
      status: 200,
      detail: 'this console received the marker',
      ...over,
    });
    const s = byId(
      deriveSteps(facts({ env: real, keys: [key()], sandbox: null, bankUrl: PUBLIC, reach: reach() }), NOW),
    );
    expect(s.key.state).toBe('done');
    expect(s.register).toMatchObject({ state: 'waiting', action_input: 'counterparty_guid' });
    expect(s.register.waiting_for).toMatch(/counterparty_guid/);
    // Before the probe from outside has passed, nothing waits for the service: it cannot call yet.
    expect(s['sign-in'].state).toBe('pending');
    expect(s['sign-in'].summary).toMatch(/step 5, the test from outside/);
    expect(s.notifications.state).toBe('pending');
    expect(s.callbacks).toMatchObject({
      state: 'pending',
      action_input: 'bank_url',
      action: 'Test from outside',
    });
    expect(s.callbacks.summary).toContain(PUBLIC);
    expect(s.callbacks.facts).toContainEqual({ label: 'bank_auth_url', value: PUBLIC });
    expect(s.callbacks.facts).toContainEqual({
      label: 'notification URL',
      value: `${PUBLIC}/api/svc/notify/transfer`,
    });

    const unreachable = facts({
      env: { ...real, counterparty_guid: GUID },
      keys: [key()],
      sandbox: null,
      bankUrl: PUBLIC,
      reach: reach({
        probe: probe({
          outcome: 'unreachable',
          rtt_ms: null,
          status: null,
          detail: 'nothing answered (ECONNREFUSED)',
        }),
      }),
    });
    const p = byId(deriveSteps(unreachable, NOW));
    expect(p.register.state).toBe('done');
    expect(p.callbacks).toMatchObject({ state: 'failed', reason: 'nothing answered (ECONNREFUSED)' });
    expect(p.callbacks.fix).toMatch(/Start the tunnel/);
    expect(p['sign-in'].state).toBe('pending');

    const reachable = byId(deriveSteps({ ...unreachable, reach: reach({ probe: probe({}) }) }, NOW));
    expect(reachable.callbacks.state).toBe('done');
    expect(reachable.callbacks.summary).toMatch(/12\.5 ms/);
    expect(reachable['sign-in'].state).toBe('waiting');
    expect(reachable['sign-in'].waiting_for).toMatch(/GET \/user_auth/);
    expect(reachable.notifications.state).toBe('waiting');
    // A probe from before the reset proves nothing now.
    expect(
      byId(deriveSteps({ ...unreachable, resetAt: t(4), reach: reach({ probe: probe({}) }) }, NOW)).callbacks
        .state,
    ).toBe('pending');

    // No public URL: the listener's URL, with the reason it will not do.
    const none = byId(
      deriveSteps(
        {
          ...unreachable,
          bankUrl: BANK,
          reach: reach({
            public_url: null,
            public_url_source: null,
            bank_auth_url: BANK,
            warning: 'There is no public URL: 127.0.0.1 …',
          }),
        },
        NOW,
      ),
    );
    expect(none.callbacks).toMatchObject({ state: 'pending', fix: 'There is no public URL: 127.0.0.1 …' });
  });

  it('sees a sandbox that lost the bank URL (a restart on another port) and a vault that cannot be read', () => {
    const moved = complete({
      sandbox: { counterparty: counterparty(['54321', 'k2'], 'http://127.0.0.1:9999'), error: null },
    });
    const c = byId(deriveSteps(moved, NOW)).callbacks;
    expect(c.state).toBe('pending');
    expect(c.summary).toMatch(
      /listen at http:\/\/127\.0\.0\.1:7301, but the sandbox has bank_auth_url http:\/\/127\.0\.0\.1:9999/,
    );

    const locked = facts({ keysError: 'the vault is locked' });
    expect(byId(deriveSteps(locked, NOW)).key).toMatchObject({
      state: 'failed',
      reason: 'the vault is locked',
    });
  });
});
