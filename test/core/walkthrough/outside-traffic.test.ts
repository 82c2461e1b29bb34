/**
 * Issue 13 item 4: a walkthrough nothing outside can knock red. Through the real core (sandbox
 * and bank endpoints on 127.0.0.1:0, real keys, real HTTP): complete the eight steps, then
 * traffic that is not the walkthrough's (malformed notification POSTs, a bad sign-in on the
 * Sandbox page, a callback with no token, a refused authenticate from the Service page) shows
 * beside the steps and leaves every step green, and the evidence pack holds 8 of 8. And issue
 * 13 item 2: a sign-in answered over the 1 s budget fails step 6 as `budget`, as everywhere.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MethodOutput } from '../../../electron/contract';
import { WALKTHROUGH_STEP_IDS, type StepId } from '../../../electron/contract/schemas/walkthrough';
import type { ConsoleCore } from '../../../electron/core/console-core';
import { call, closeAll, newDataDir, openCore } from './harness';

type State = MethodOutput<'walkthrough.state'>;

afterEach(closeAll);

async function start(): Promise<{ core: ConsoleCore; bankUrl: string }> {
  const core = await openCore(await newDataDir());
  await core.listenSandbox({ host: '127.0.0.1', port: 0 });
  const bank = await core.listenBank({ host: '127.0.0.1', port: 0 });
  return { core, bankUrl: bank.url };
}

const states = (s: State) => s.steps.map((x) => x.state);
const stepOf = (s: State, id: StepId) => s.steps.find((x) => x.id === id)!;
const ORDER: readonly StepId[] = WALKTHROUGH_STEP_IDS;

async function completeAll(core: ConsoleCore): Promise<State> {
  let state: State | null = null;
  for (const step of ORDER) {
    const r = await call(core, 'walkthrough.run', { step });
    expect(r.ok, `${step}: ${r.message}`).toBe(true);
    state = r.state;
  }
  return state!;
}

describe('the walkthrough and traffic that is not its own', () => {
  it('stays green through malformed notifications, a bad sign-in, a bare callback and a refused authenticate', async () => {
    const { core, bankUrl } = await start();
    const done = await completeAll(core);
    expect(states(done)).toEqual(Array(8).fill('done'));
    const guid = done.environment.counterparty_guid!;

    // From outside: malformed notifications on every route (no JSON, not a UUID, no Content-Type).
    for (const route of ['pay-in', 'pay-out', 'transfer']) {
      const url = `${bankUrl}/api/svc/notify/${route}`;
      const bodies: Array<[string | undefined, string]> = [
        ['application/json', '{not json'],
        ['application/json', '{"transaction_id": "not-a-uuid"}'],
        [undefined, 'hello'],
      ];
      for (const [type, body] of bodies) {
        const res = await fetch(url, {
          method: 'POST',
          headers: type ? { 'Content-Type': type } : {},
          body,
        });
        expect(res.status).toBe(400);
        await res.arrayBuffer();
      }
    }
    // A callback from outside with no X-Session-ID, and one with a bad token.
    const bare: Record<string, string>[] = [{}, { 'X-Session-ID': 'a.b.c' }];
    for (const headers of bare) {
      const res = await fetch(`${bankUrl}/user_auth`, { headers });
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    }
    // The Sandbox page: a deliberately bad sign-in for the same counterparty.
    const bad = await call(core, 'sandbox.signIn', { counterparty_guid: guid, token: 'not.a.jwt' });
    expect(bad.ok).toBe(false);
    // The Service page: a refused authenticate.
    const refused = await call(core, 'service.authenticate', { token: 'not.a.jwt' });
    expect(refused.exchange.ok).toBe(false);

    // The bank records callbacks just after answering: wait for both outside callbacks (bounded).
    const store = await core.store();
    for (let i = 0; i < 200; i++) {
      if ((await store.query({ kind: 'callback', failed: true })).total >= 2) break;
      await new Promise((r) => setTimeout(r, 10));
    }

    const after = await call(core, 'walkthrough.state');
    expect(states(after), JSON.stringify(after.steps.map((s) => [s.id, s.summary]))).toEqual(
      Array(8).fill('done'),
    );
    expect(after.done).toBe(8);
    // The other traffic is shown beside the steps, named as not the walkthrough's.
    const signInOther = stepOf(after, 'sign-in').facts.find((f) => f.label === 'other traffic');
    expect(signInOther?.value).toMatch(/other \/user_auth callback/);
    const notesOther = stepOf(after, 'notifications').facts.find((f) => f.label === 'other traffic');
    expect(notesOther?.value).toMatch(/^9 other notification/);

    const pack = JSON.parse((await call(core, 'walkthrough.exportPack')).text) as {
      steps: Array<{ state: string }>;
      markdown: string;
    };
    expect(pack.steps.map((s) => s.state)).toEqual(Array(8).fill('done'));
    expect(pack.markdown).toMatch(/8 of 8 steps done/);
  });

  it('fails the sign-in as `budget` when the bank answers in 1.5 s, the same verdict the callback carries', async () => {
    const { core } = await start();
    for (const step of ORDER.slice(0, 5)) await call(core, 'walkthrough.run', { step });
    await call(core, 'bank.setBehaviours', { user_auth: { delay_ms: 1500 } });
    const r = await call(core, 'walkthrough.run', { step: 'sign-in' });
    expect(r.ok).toBe(false);
    const step = stepOf(r.state, 'sign-in');
    expect(step.state).toBe('failed');
    expect(step.reason).toMatch(/over the 1 s budget/);
    expect(step.fix).toMatch(/Answer within 1 second/);
    const [id] = step.event_ids;
    expect(id).toBeDefined();
    const store = await core.store();
    expect((await store.get(id!)).failed_check).toBe('budget');
    // Without the delay, the walkthrough's next sign-in turns the step green.
    await call(core, 'bank.setBehaviours', {});
    const again = await call(core, 'walkthrough.run', { step: 'sign-in' });
    expect(stepOf(again.state, 'sign-in').state).toBe('done');
  });
});
