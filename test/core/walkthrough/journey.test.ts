/**
 * Issue 26 item 3 and issue 27 item 5 through the real core (real HTTP listeners on 127.0.0.1:0,
 * real SQLite, real crypto):
 * - a real environment's journey in its order: no public URL → the block says to make one first
 *   and holds no bank URL; with one → one block of what to send the service team (public JWK,
 *   bank_auth_url, sender and receiver URLs, the notification prefix), each value and the whole
 *   text; steps 6 and 7 say who starts them and carry the message to send; the sandbox has none.
 * - step 7's retry rehearsal: a pay-in with a lost acknowledgement through the sandbox's delivery
 *   engine; the console's own bank answers the repeat 200 and stores it as `repeat` (delivery
 *   `delivered`); a test receiver that answers the repeat 409 fails it, and the step with it; the
 *   evidence pack names the rehearsal and every step's proof.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { MethodOutput } from '../../../electron/contract';
import type { StepId } from '../../../electron/contract/schemas/walkthrough';
import type { ConsoleCore } from '../../../electron/core/console-core';
import { expectDoneStepsProven } from '../../support/evidence-pack';
import { call, closeAll, newDataDir, openCore } from './harness';

type State = MethodOutput<'walkthrough.state'>;
const stateOf = (s: State, id: StepId) => s.steps.find((x) => x.id === id)!;
const run = (core: ConsoleCore, step: StepId, extra: Record<string, unknown> = {}) =>
  call(core, 'walkthrough.run', { step, ...extra });

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await closeAll();
});

/**
 * A bank's notification receiver that applies a transaction once and answers a repeat 409 (the
 * classic fault): counts what it received per transaction_id.
 */
async function refusingReceiver() {
  const seen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const tx = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { transaction_id: string })
        .transaction_id;
      const n = (seen.get(tx) ?? 0) + 1;
      seen.set(tx, n);
      res.writeHead(n === 1 ? 200 : 409);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('a real environment’s journey, in order and explained', () => {
  it('asks for the public URL first, then gives one block to send and who starts steps 6 and 7', async () => {
    const core = await openCore(await newDataDir());
    await core.listenBank({ host: '127.0.0.1', port: 0 });
    const env = await call(core, 'env.save', { name: 'Staging', base_url: 'http://127.0.0.1:9' });
    await call(core, 'env.activate', { id: env.id });
    await run(core, 'key');

    // No public URL: the block holds the JWK and the prefix, no bank URL, and says what comes first.
    let state = await call(core, 'walkthrough.state');
    expect(state.onboarding).toMatchObject({ public_url: null, counterparty_guid: null });
    expect(state.onboarding!.missing).toMatch(/^No public URL yet/);
    expect(state.onboarding!.values.map((v) => v.id)).toEqual(['public_jwk', 'notify_prefix']);
    expect(stateOf(state, 'register').summary).toMatch(/^First the public URL the service will call/);

    // The engineer's own front: saved on the environment, the block is complete.
    const front = 'https://bank-staging.example';
    await call(core, 'env.save', { id: env.id, public_url: front });
    state = await call(core, 'walkthrough.state');
    const block = state.onboarding!;
    expect(block).toMatchObject({ public_url: front, public_url_source: 'environment', missing: null });
    const kid = state.environment.active_kid!;
    const jwk = JSON.parse((await call(core, 'keys.export', { kid, format: 'jwk' })).text) as Record<
      string,
      unknown
    >;
    expect(Object.fromEntries(block.values.map((v) => [v.id, v.value]))).toEqual({
      public_jwk: JSON.stringify(jwk),
      bank_auth_url: front,
      bank_sender_url: front,
      bank_receiver_url: front,
      notify_prefix: '/api/svc/notify',
    });
    expect(Object.keys(JSON.parse(block.values[0]!.value) as object).sort()).toEqual([
      'alg',
      'e',
      'kid',
      'kty',
      'n',
      'use',
    ]);
    for (const v of block.values) expect(block.text).toContain(v.value);
    expect(block.text).toMatch(/answer with our counterparty_guid/);
    expect(block.text).not.toMatch(/Not ready to send/);
    expect(stateOf(state, 'register').summary).toContain(`bank_auth_url ${front}`);

    // The guid they answer; steps 6 and 7 name who starts them and the message to send.
    const guid = '3f2b8c1e-9a4d-4e7b-8c2f-1d5e6a7b8c9d';
    state = (await run(core, 'register', { counterparty_guid: guid })).state;
    expect(state.onboarding!.counterparty_guid).toBe(guid);
    await run(core, 'compose');
    state = await call(core, 'walkthrough.state');
    const signIn = stateOf(state, 'sign-in').service_request!;
    expect(signIn.who).toMatch(/^The service team, on their side/);
    expect(signIn.message).toContain(`counterparty ${guid}`);
    expect(signIn.message).toContain(`GET ${front}/user_auth`);
    expect(signIn.message).toContain(`obj ${state.obj}`);
    const notes = stateOf(state, 'notifications').service_request!;
    for (const route of ['pay-in', 'pay-out', 'transfer']) {
      expect(notes.message).toContain(`${front}/api/svc/notify/${route}`);
    }
    for (const id of ['key', 'register', 'compose', 'authenticate', 'callbacks', 'rotate'] as const) {
      expect(stateOf(state, id).service_request ?? null).toBeNull();
    }

    // The rehearsal is the sandbox's: refused here, naming why.
    const refused = await run(core, 'notifications', { rehearse_retry: true });
    expect(refused).toMatchObject({ ok: false, message: expect.stringMatching(/runs on the sandbox/) });
  });

  it('the sandbox environment has no onboarding block and no service requests', async () => {
    const core = await openCore(await newDataDir());
    await core.listenSandbox({ host: '127.0.0.1', port: 0 });
    await core.listenBank({ host: '127.0.0.1', port: 0 });
    await run(core, 'key');
    const state = await call(core, 'walkthrough.state');
    expect(state.onboarding).toBeNull();
    expect(state.steps.every((s) => !s.service_request)).toBe(true);
  });
});

describe('step 7 rehearses the service’s retry', () => {
  /** A sandbox walkthrough up to step 5, so step 7 can run. */
  async function sandboxCore() {
    const core = await openCore(await newDataDir());
    await core.listenSandbox({ host: '127.0.0.1', port: 0 });
    await core.listenBank({ host: '127.0.0.1', port: 0 });
    for (const step of ['key', 'register', 'callbacks'] as const) {
      const r = await run(core, step);
      expect(r.ok, r.message).toBe(true);
    }
    return core;
  }

  it('proves the bank answered the repeat 200: stored as repeat after one accepted, the delivery delivered; the pack names it', async () => {
    const core = await sandboxCore();
    const result = await run(core, 'notifications', { rehearse_retry: true });
    expect(result.ok, result.message).toBe(true);
    const r = result.state.rehearsal!;
    expect(r).toMatchObject({ ok: true, delivery_state: 'delivered', repeat_status: 200 });
    expect(r.events.map((e) => [e.outcome, e.status])).toEqual([
      ['accepted', 200],
      ['repeat', 200],
    ]);
    // The sandbox's own record of the delivery agrees: the first answer lost, the repeat 200.
    const delivery = await call(core, 'sandbox.delivery', { delivery_id: r.delivery_id });
    expect(delivery.attempts.filter((a) => !a.copy).map((a) => a.status)).toEqual([null, 200]);
    const step7 = stateOf(result.state, 'notifications');
    expect(step7.facts).toContainEqual({ label: 'retry rehearsal', value: `passed: ${r.detail}` });
    expect(step7.event_ids).toEqual(expect.arrayContaining(r.events.map((e) => e.id)));

    const pack = JSON.parse((await call(core, 'walkthrough.exportPack', {})).text) as {
      retry_rehearsal: { delivery_id: string; ok: boolean };
      steps: Array<{
        id: string;
        state: string;
        at: string | null;
        proved_by: Array<{ kind: string; id: string; at: string | null }>;
      }>;
      markdown: string;
    };
    expect(pack.retry_rehearsal).toMatchObject({ delivery_id: r.delivery_id, ok: true });
    const proofs = pack.steps.find((s) => s.id === 'notifications')!.proved_by;
    expect(proofs).toContainEqual(expect.objectContaining({ kind: 'retry rehearsal', id: r.delivery_id }));
    expect(proofs.filter((p) => p.kind === 'notification').map((p) => p.id)).toEqual(
      expect.arrayContaining(r.events.map((e) => e.id)),
    );
    // Every done step has its time and at least one proof with a time.
    expectDoneStepsProven(pack.steps);
    expect(pack.markdown).toMatch(/\| Proved by \|/);
    expect(pack.markdown).toContain(`retry rehearsal \`${r.delivery_id}\``);
  });

  it('fails when the bank answers the repeat 409, and step 7 says why', async () => {
    const core = await sandboxCore();
    const receiver = await refusingReceiver();
    const guid = (await call(core, 'walkthrough.state')).environment.counterparty_guid!;
    await call(core, 'sandbox.updateCounterparty', {
      counterparty_guid: guid,
      bank_receiver_url: receiver.url,
    });

    const result = await run(core, 'notifications', { rehearse_retry: true });
    expect(result.ok).toBe(false);
    const r = result.state.rehearsal!;
    expect(r).toMatchObject({ ok: false, repeat_status: 409, delivery_state: 'delivering', events: [] });
    expect(r.detail).toMatch(/the bank answered the repeat 409 for /);
    expect(receiver.seen.get(r.transaction_id)).toBeGreaterThanOrEqual(2);
    const step7 = stateOf(result.state, 'notifications');
    expect(step7).toMatchObject({ state: 'failed', reason: r.detail });
    expect(step7.fix).toMatch(/apply it once/);
  });
});
