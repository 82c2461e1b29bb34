/**
 * Issue 24 item 7: upgrading a profile from the segment-log version keeps the walkthrough's
 * progress. A real walkthrough runs on today's core (sandbox and bank endpoints on 127.0.0.1,
 * real keys, real HTTP); its profile is then written out as the segment-log version kept it
 * (old-profile.ts: events in segments, sandbox/state.json, service/exchanges.jsonl, the progress
 * file without `own`), and today's core opens that old profile, migrating every store.
 *
 * - A completed walkthrough (all eight steps done under the old rules, which counted any
 *   traffic) stays done, with `own` rebuilt from the walkthrough's own sign-in, notifications
 *   and authenticate only: a Sandbox-page sign-in and notifications before them are not claimed.
 * - A walkthrough that never ran steps 6 and 7, in a profile where the Sandbox page signed the
 *   same customer in and sent every notification (which the old rules took as proof), keeps
 *   steps 6 and 7 pending: a stranger's traffic is not made the walkthrough's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MethodOutput } from '../../../electron/contract';
import { WALKTHROUGH_STEP_IDS, type StepId } from '../../../electron/contract/schemas/walkthrough';
import type { ConsoleCore } from '../../../electron/core/console-core';
import { openDatabase } from '../../../electron/core/store/db';
import type { Own } from '../../../electron/core/walkthrough/progress';
import { call, closeAll, forget, newDataDir, openCore } from './harness';
import { oldEvents, writeOldProfile } from './old-profile';

type State = MethodOutput<'walkthrough.state'>;

afterEach(closeAll);

interface Ports {
  sandbox: number;
  bank: number;
}

/** A core listening on `ports` (0: any); the same ports again keep the sandbox's bank URL right. */
async function start(dataDir: string, ports: Ports = { sandbox: 0, bank: 0 }) {
  const core = await openCore(dataDir);
  const sandbox = await core.listenSandbox({ host: '127.0.0.1', port: ports.sandbox });
  const bank = await core.listenBank({ host: '127.0.0.1', port: ports.bank });
  const port = (url: string) => Number(new URL(url).port);
  return { core, ports: { sandbox: port(sandbox.url), bank: port(bank.url) } };
}

const states = (s: State) => Object.fromEntries(s.steps.map((x) => [x.id, x.state]));

async function run(core: ConsoleCore, step: StepId): Promise<void> {
  const r = await call(core, 'walkthrough.run', { step });
  expect(r.ok, `${step}: ${r.message}`).toBe(true);
}

/**
 * The Sandbox page, not the walkthrough: a sign-in of the walkthrough's own customer with a
 * token composed on the JWT page, and one notification per route.
 */
async function strangerTraffic(core: ConsoleCore, state: State): Promise<void> {
  const guid = state.environment.counterparty_guid!;
  const { token } = await call(core, 'jwt.sign', {
    kid: state.environment.active_kid,
    obj: state.obj,
    sub: state.sub,
    ttl: 600,
  });
  const signIn = await call(core, 'sandbox.signIn', { counterparty_guid: guid, token });
  expect(signIn.ok, JSON.stringify(signIn.trace.steps.filter((s) => s.status === 'failed'))).toBe(true);
  for (const event of ['pay-in', 'pay-out', 'transfer'] as const) {
    const sent = await call(core, 'sandbox.notify', {
      counterparty_guid: guid,
      event,
      ...(event === 'transfer' ? { to: 'receiver' } : {}),
    });
    expect(sent.status).toBe(200);
  }
}

/** The stored progress record of the sandbox environment, as JSON. */
function storedRecord(dataDir: string): { own?: Own } {
  const db = openDatabase(dataDir, { readOnly: true });
  try {
    const row = db.prepare("SELECT record FROM walkthrough_progress WHERE environment_id = 'sandbox'").get();
    return JSON.parse(String(row!.record)) as { own?: Own };
  } finally {
    db.close();
  }
}

/** Closes `core`, writes its profile as the segment-log version did, and opens that with today's core. */
async function upgrade(core: ConsoleCore, dataDir: string, ports: Ports) {
  const events = await oldEvents(core);
  await core.close();
  forget(core);
  const oldDir = await newDataDir();
  await writeOldProfile(dataDir, oldDir, events);
  return { ...(await start(oldDir, ports)), oldDir };
}

describe('upgrading a profile from the segment-log version', () => {
  it('keeps every step of a completed walkthrough done, claiming only its own traffic', async () => {
    const dataDir = await newDataDir();
    const { core, ports } = await start(dataDir);
    for (const step of WALKTHROUGH_STEP_IDS.slice(0, 5)) await run(core, step);
    // Before the walkthrough's own sign-in and notifications: the same from the Sandbox page.
    await strangerTraffic(core, await call(core, 'walkthrough.state'));
    const strangers = new Set((await call(core, 'sandbox.traces', { limit: 1000 })).map((t) => t.id));
    for (const step of WALKTHROUGH_STEP_IDS.slice(5)) await run(core, step);
    const before = await call(core, 'walkthrough.state');
    expect(states(before)).toEqual(Object.fromEntries(WALKTHROUGH_STEP_IDS.map((id) => [id, 'done'])));
    const original = storedRecord(dataDir).own!;

    const upgraded = await upgrade(core, dataDir, ports);
    const after = await call(upgraded.core, 'walkthrough.state');
    expect(
      states(after),
      JSON.stringify(after.steps.map((s) => [s.id, s.state, s.summary, s.reason])),
    ).toEqual(states(before));
    expect(after.done).toBe(8);

    // Rebuilt once and written back: the walkthrough's own last sign-in (with the callback that
    // carried its X-Session-ID), its three notifications and its authenticate; no stranger's.
    const own = storedRecord(upgraded.oldDir).own!;
    expect(own.sign_ins.map((s) => s.trace_id)).toEqual([original.sign_ins[0]!.trace_id]);
    const callbackId = own.sign_ins[0]!.callback_id;
    expect(callbackId).not.toBeNull();
    const store = await upgraded.core.store();
    expect((await store.get(callbackId!)).status).toBe(200);
    expect(own.notifications.map((n) => [n.route, n.transaction_id])).toEqual(
      original.notifications.slice(0, 3).map((n) => [n.route, n.transaction_id]),
    );
    expect(own.exchange_ids).toContain(original.exchange_ids[0]);
    const claimed = [...own.sign_ins.map((s) => s.trace_id), ...own.notifications.map((n) => n.trace_id)];
    expect(claimed.filter((id) => strangers.has(id))).toEqual([]);
    // The sign-in's evidence is the migrated event the bank recorded for that sign-in.
    const traces = await call(upgraded.core, 'sandbox.traces', { limit: 1000 });
    const trace = traces.find((t) => t.id === own.sign_ins[0]!.trace_id)!;
    const sent = trace.steps.find((s) => s.request)!.request!.headers['X-Session-ID'];
    expect((await store.get(callbackId!)).request?.headers['x-session-id']).toBe(sent);
  });

  it('keeps steps 6 and 7 pending when only the Sandbox page signed in and notified', async () => {
    const dataDir = await newDataDir();
    const { core, ports } = await start(dataDir);
    for (const step of WALKTHROUGH_STEP_IDS.slice(0, 5)) await run(core, step);
    const five = await call(core, 'walkthrough.state');
    await strangerTraffic(core, five);
    // What the old rules read as proof of steps 6 and 7 is in the profile: a passed /user_auth
    // for the walkthrough's obj, and a stored 200 on every route.
    const store = await core.store();
    const cbs = await store.query({ kind: 'callback', path: '/user_auth' });
    expect(cbs.events.some((e) => e.obj === five.obj && e.status === 200 && e.failed_check === null)).toBe(
      true,
    );
    const notes = await store.query({ kind: 'notification' });
    expect(notes.events.filter((e) => e.status === 200)).toHaveLength(3);
    const current = states(await call(core, 'walkthrough.state'));
    expect([current['sign-in'], current.notifications]).toEqual(['pending', 'pending']);

    const upgraded = await upgrade(core, dataDir, ports);
    const after = states(await call(upgraded.core, 'walkthrough.state'));
    expect(after).toEqual({ ...current, 'sign-in': 'pending', notifications: 'pending' });
    expect(after.authenticate).toBe('done');
    const own = storedRecord(upgraded.oldDir).own!;
    expect(own.sign_ins).toEqual([]);
    expect(own.notifications).toEqual([]);
    expect(own.exchange_ids).toHaveLength(1);
  });
});
