/**
 * Each walkthrough step's derivation tested on its own (issue 25 item 1: one pure function per
 * step, electron/core/walkthrough/derive/*): the rules that were reachable only through the
 * 470-line deriveSteps, including the ones that read another step's state (authenticate reads
 * registration; the sign-in and notifications read step 5 on a real environment) and the failed
 * attempt that overrides a step until something newer proves it.
 */
import { describe, expect, it } from 'vitest';
import type { Rotation } from '../../../electron/contract/schemas/service';
import { applyFailedAttempt, type NotificationFact } from '../../../electron/core/walkthrough/derive';
import { deriveContext, draft } from '../../../electron/core/walkthrough/derive/shared';
import { keyStep } from '../../../electron/core/walkthrough/derive/step-1-key';
import { registerStep } from '../../../electron/core/walkthrough/derive/step-2-register';
import { composeStep } from '../../../electron/core/walkthrough/derive/step-3-compose';
import { authenticateStep } from '../../../electron/core/walkthrough/derive/step-4-authenticate';
import { callbacksStep } from '../../../electron/core/walkthrough/derive/step-5-callbacks';
import { signInStep } from '../../../electron/core/walkthrough/derive/step-6-sign-in';
import { notificationsStep } from '../../../electron/core/walkthrough/derive/step-7-notifications';
import { rotateStep } from '../../../electron/core/walkthrough/derive/step-8-rotate';
import {
  BANK,
  OBJ,
  SUB,
  counterparty,
  userAuthCallback,
  env,
  exchange,
  facts,
  key,
  signInTrace,
  t,
} from './fixtures';

const ctxOf = (over: Parameters<typeof facts>[0] = {}) => deriveContext(facts(over));
const real = env({ id: 'sandbox', kind: 'real', base_url: 'https://dets.example', counterparty_guid: null });

describe('step 1, the key', () => {
  it('fails on an active kid the store lacks, and on an expired active key', () => {
    expect(keyStep(ctxOf({ env: env({ active_kid: 'gone' }), keys: [key()] }))).toMatchObject({
      state: 'failed',
      summary: 'The active key "gone" is not in the key store.',
      action: 'Create the signing key',
    });
    const expired = keyStep(
      ctxOf({ env: env(), keys: [key('54321', { expires: '2026-01-01', expires_in_days: -5 })] }),
    );
    expect(expired).toMatchObject({ state: 'failed', action: 'Create a new key' });
    expect(expired.reason).toMatch(/expired on 2026-01-01/);
    expect(expired.facts).toContainEqual({ label: 'fingerprint (RFC 7638)', value: 'thumb-54321' });
  });
});

describe('step 2, registration', () => {
  it('on the sandbox: lists what is registered when the active key is not, fails on an unknown counterparty', () => {
    const pending = registerStep(
      ctxOf({ env: env(), keys: [key()], sandbox: { counterparty: counterparty(['other']), error: null } }),
    );
    expect(pending.state).toBe('pending');
    expect(pending.summary).toContain('(registered: other)');
    expect(pending.fix).toMatch(/PUT …\/jwk\/\{jwk_guid\}/);
    expect(pending.facts[0]).toEqual({ label: 'counterparty_guid', value: env().counterparty_guid });
    expect(registerStep(ctxOf({ env: env(), keys: [key()] })).state).toBe('failed');
  });

  it('on a real environment: done by the saved counterparty_guid alone, else waiting for it', () => {
    expect(registerStep(ctxOf({ env: { ...real, counterparty_guid: 'g-1' }, sandbox: null })).state).toBe(
      'done',
    );
    expect(registerStep(ctxOf({ env: real, sandbox: null }))).toMatchObject({
      state: 'waiting',
      action_input: 'counterparty_guid',
    });
  });
  it('on a real environment: done carries a time, for the evidence pack (issue 26)', () => {
    const saved = { ...real, counterparty_guid: 'g-1', created_at: '2026-03-01T10:00:00.000Z' };
    // Saved by this step: when it was saved.
    const attempts = { register: { at: '2026-03-01T10:05:00.000Z', ok: true, reason: null, fix: null } };
    expect(registerStep(ctxOf({ env: saved, sandbox: null, attempts })).at).toBe('2026-03-01T10:05:00.000Z');
    // Given on the Environments page: when the environment was made.
    expect(registerStep(ctxOf({ env: saved, sandbox: null })).at).toBe('2026-03-01T10:00:00.000Z');
  });
});

describe('step 3, the composed JWT', () => {
  const composed = {
    at: t(5),
    kid: 'old',
    obj: OBJ,
    sub: SUB,
    token: 'a.b.c',
    header: { alg: 'RS256', kid: 'old' },
    payload: { exp: 1_800_000_000 },
  };
  it('notes a newer active key, and forgets a JWT composed before the reset', () => {
    const d = composeStep(ctxOf({ env: env(), keys: [key()], composed }));
    expect(d.state).toBe('done');
    expect(d.summary).toMatch(/The active key is now "54321"/);
    expect(d.facts).toContainEqual({ label: 'exp', value: '2027-01-15T08:00:00.000Z' });
    expect(composeStep(ctxOf({ composed, resetAt: t(6) })).state).toBe('pending');
  });
});

describe('step 4, authenticate', () => {
  const refused = exchange(t(7), {
    status: 401,
    body: '{"error":"unknown jwk"}',
    explanation: 'see the JWK',
  });
  it('says "register first" for a 401 only while step 2 is not done', () => {
    const ctx = ctxOf({ env: env(), keys: [key()], exchanges: [refused] });
    expect(authenticateStep(ctx, false).fix).toMatch(/^Register the JWK first: run step 2 \(the console/);
    expect(authenticateStep(ctx, true).fix).toBe('see the JWK');
    expect(authenticateStep(ctx, true).reason).toMatch(/^the service answered 401/);
  });

  it('asks again when the last success was with a key no longer active', () => {
    const d = authenticateStep(
      ctxOf({ env: env({ active_kid: 'k2' }), keys: [key('k2')], exchanges: [exchange(t(8))] }),
      true,
    );
    expect(d.state).toBe('pending');
    expect(d.summary).toMatch(/the active key is now "k2": authenticate again/);
  });
});

describe('step 5, the callback endpoints', () => {
  it('on a real environment counts only a probe made since the environment exists', () => {
    const probe = (at: string) => ({
      at,
      url: `${BANK}/.well-known/dets-console/probe/m`,
      outcome: 'reachable' as const,
      rtt_ms: 4,
      status: 200,
      detail: 'received the marker',
    });
    const reach = (at: string) => ({
      public_url: BANK,
      public_url_source: 'tunnel' as const,
      bank_auth_url: BANK,
      notification_urls: [],
      warning: null,
      probe: probe(at),
      forward_url: null,
    });
    const made = env({ id: 'staging', kind: 'real', base_url: 'https://dets.example', created_at: t(10) });
    expect(callbacksStep(ctxOf({ env: made, reach: reach(t(5)) })).state).toBe('pending');
    expect(callbacksStep(ctxOf({ env: made, reach: reach(t(15)) })).state).toBe('done');
  });

  it('on the sandbox: pending until onboarded, then done when every URL is the listener', () => {
    expect(callbacksStep(ctxOf({ env: env() })).summary).toMatch(/once the bank is onboarded/);
    const done = callbacksStep(ctxOf({ env: env(), sandbox: { counterparty: counterparty(), error: null } }));
    expect(done).toMatchObject({ state: 'done', action: 'Give the sandbox the bank URL' });
    expect(done.facts).toContainEqual({ label: 'bank URL', value: BANK });
    expect(callbacksStep(ctxOf({ env: env(), bankUrl: null })).state).toBe('failed');
  });
});

describe('step 6, the sign-in', () => {
  const passed = userAuthCallback('ok', t(10), { duration_ms: 12.4 });
  it('a failed sign-in trace after the last good callback fails the step with the trace fix', () => {
    const d = signInStep(
      ctxOf({
        env: env(),
        callbacks: [passed],
        traces: [signInTrace(t(12), false, { id: 'bank_jwt', detail: 'refused' })],
      }),
      true,
    );
    expect(d).toMatchObject({ state: 'failed', reason: 'refused', event_ids: [] });
    expect(d.fix).toMatch(/register the active key \(step 2\)/);
  });

  it('a forward target that failed a verdict fails the step even with a 200', () => {
    const d = signInStep(ctxOf({ env: env(), callbacks: [{ ...passed, forward_ok: false }] }), true);
    expect(d.state).toBe('failed');
    expect(d.fix).toBe('See the callback on the Callbacks page.');
  });

  it('on a real environment waits only once step 5 is done, and counts other traffic', () => {
    const outside = { traces: 4, callbacks: 2, notifications: 0 };
    expect(signInStep(ctxOf({ env: real, outside }), false).state).toBe('pending');
    const waiting = signInStep(ctxOf({ env: real, outside }), true);
    expect(waiting.state).toBe('waiting');
    expect(waiting.facts).toEqual([
      {
        label: 'other traffic',
        value:
          "2 other /user_auth callback(s) since the reset: shown on the Callbacks and Sandbox pages, not the walkthrough's, so they do not decide this step",
      },
    ]);
  });
});

describe('step 7, notifications', () => {
  const note = (
    id: string,
    at: string,
    route: NotificationFact['route'],
    status: number,
  ): NotificationFact => ({
    id,
    at,
    route,
    status,
    outcome: status === 200 ? 'accepted' : 'rejected',
    transaction_id: null,
  });
  const all = [
    note('a', t(10), 'pay-in', 200),
    note('b', t(10), 'pay-out', 200),
    note('c', t(10), 'transfer', 200),
  ];

  it('on the sandbox the latest attempt per route decides; a real service’s route once received stays so', () => {
    const refusedLater = [note('x', t(20), 'transfer', 400), ...all];
    const sandbox = notificationsStep(ctxOf({ env: env(), notifications: refusedLater }), true);
    expect(sandbox).toMatchObject({ state: 'failed', reason: 'transfer: answered 400 (rejected)' });
    const realEnv = notificationsStep(ctxOf({ env: real, notifications: refusedLater }), true);
    expect(realEnv.state).toBe('done');
    expect(realEnv.event_ids).toEqual(['a', 'b', 'c']);
  });

  it('on a real environment: pending before step 5, then waiting for the missing routes', () => {
    const some = [all[0]!];
    expect(notificationsStep(ctxOf({ env: real, notifications: some }), false).summary).toMatch(
      /^Received pay-in; Not yet: the service must be able to reach/,
    );
    const waiting = notificationsStep(ctxOf({ env: real, notifications: some, notifyPrefix: '/n' }), true);
    expect(waiting.state).toBe('waiting');
    expect(waiting.waiting_for).toBe(
      `the service team to send pay-out, transfer (send them the message below), to ${BANK}/n/…`,
    );
  });
});

describe('step 8, rotation', () => {
  const rotation = (over: Partial<Rotation> = {}): Rotation => ({
    environment_id: 'sandbox',
    from_kid: '54321',
    to_kid: 'k3',
    state: 'failed',
    steps: [
      { id: 'register', title: 'Register it', status: 'failed', detail: 'PUT refused', exchange_id: 'put-1' },
    ],
    started_at: t(40),
    finished_at: t(41),
    ...over,
  });
  it("quotes the service's words of the refused PUT, and ignores a rotation of another environment", () => {
    const put = exchange(t(41), {
      id: 'put-1',
      operation: 'update-jwk',
      status: 403,
      body: '{"error":"nope"}',
    });
    const d = rotateStep(ctxOf({ env: env(), keys: [key()], rotation: rotation(), exchanges: [put] }));
    expect(d.state).toBe('failed');
    expect(d.reason).toMatch(/^the service answered 403.* \(PUT refused\)$/);
    expect(d.facts).toContainEqual({ label: 'active key expires', value: '2027-11-21 (in 365 days)' });
    const other = rotateStep(
      ctxOf({ env: env(), keys: [key()], rotation: rotation({ environment_id: 'elsewhere' }) }),
    );
    expect(other).toMatchObject({
      state: 'pending',
      summary: 'The active key expires on 2027-11-21 (in 365 days). Rotate it before then.',
    });
  });
});

describe('a failed attempt', () => {
  it('overrides a step until something newer proves it, and never an already failed step', () => {
    const attempt = { at: t(20), ok: false, reason: 'the vault is locked', fix: 'unlock it' };
    const ctx = ctxOf({ attempts: { key: attempt } });
    const older = draft('done', 'proven', { at: t(10) });
    applyFailedAttempt(ctx, 'key', older);
    expect(older).toMatchObject({ state: 'failed', reason: 'the vault is locked', at: t(20) });
    const newer = draft('done', 'proven', { at: t(30) });
    applyFailedAttempt(ctx, 'key', newer);
    expect(newer.state).toBe('done');
    const failed = draft('failed', 'its own reason', { reason: 'own' });
    applyFailedAttempt(ctx, 'key', failed);
    expect(failed.reason).toBe('own');
    const beforeReset = draft('pending', 'nothing yet');
    applyFailedAttempt(ctxOf({ attempts: { key: attempt }, resetAt: t(25) }), 'key', beforeReset);
    expect(beforeReset.state).toBe('pending');
  });
});
