/**
 * A delivery on its ladder survives `kill -9` of the process that plays it (issue 27 item 1;
 * DESIGN.md "Sandbox service": "deliveries survive a restart (they live in the profile database)
 * and resume"). The built CLI's `sandbox --time-scale 0.05` delivers a pay-in to a receiver on
 * 127.0.0.1 that refuses (500); mid-ladder the process is killed with SIGKILL (no shutdown, no
 * flush), started again on the same profile, and the receiver starts accepting: the delivery
 * ends `delivered`, its attempts numbered on from where they were, none lost and none
 * duplicated beyond the one attempt that may have been sent but not yet recorded when the kill
 * came (the ladder's at-least-once). Every process the test starts is stopped by its PID.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Delivery } from '../../electron/contract/schemas/delivery';
import { call, cleanup, fakeBank, makeBankKey } from '../core/sandbox/helpers';
import { spawnLongRunning, type ServeChild } from './helpers';

const SCALE = 0.05;
const children: ServeChild[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) {
    c.kill();
    await c.exit;
  }
  await cleanup();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function sandbox(dataDir: string): Promise<{ child: ServeChild; url: string }> {
  const child = spawnLongRunning('sandbox', [
    '--json',
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--time-scale',
    String(SCALE),
  ]);
  children.push(child);
  const ready = await child.ready;
  return { child, url: String(ready.sandbox) };
}

async function delivery(url: string, id: string): Promise<Delivery> {
  const r = await call(url, 'GET', `/sandbox/v1/deliveries/${id}`);
  expect(r.status).toBe(200);
  return Delivery.parse(r.json);
}

/** Polls `until` every 50 ms (bounded: 400 polls, 20 s). */
async function waitFor(what: string, until: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (let i = 0; i < 400 && Date.now() < deadline; i += 1) {
    if (await until()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a delivery resumes after kill -9', () => {
  it('attempt numbering continues on the same profile and the delivery ends delivered', async () => {
    let accepting = false;
    const bank = await fakeBank((_req, res) => {
      res.writeHead(accepting ? 200 : 500);
      res.end();
    });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'dets-resume-kill-'));
    dirs.push(dataDir);

    const first = await sandbox(dataDir);
    const key = await makeBankKey();
    const onboard = await call(first.url, 'POST', '/sandbox/v1/counterparties', {
      json: { jwk: key.jwk, bank_receiver_url: bank.url },
    });
    expect(onboard.status).toBe(201);
    const guid = (onboard.json as { counterparty_guid: string }).counterparty_guid;
    const sent = await call(first.url, 'POST', `/sandbox/v1/counterparties/${guid}/notify`, {
      json: { event: 'pay-in' },
    });
    expect(sent.status).toBe(200);
    const { delivery_id: id, transaction_id: tx } = sent.json as {
      delivery_id: string;
      transaction_id: string;
    };

    // Mid-ladder: three attempts refused (waits 50, 100 ms; the fourth is due 200 ms later).
    await waitFor('three refused attempts', async () => (await delivery(first.url, id)).attempts.length >= 3);
    const before = await delivery(first.url, id);
    first.child.kill();
    expect(await first.child.exit).toEqual({ code: null, signal: 'SIGKILL' });
    const receivedAtKill = bank.received.length;
    expect(before.state).toBe('delivering');

    // Still refusing after the restart: the ladder must go on from the stored attempts.
    const second = await sandbox(dataDir);
    await waitFor('a refused attempt after the restart', () => bank.received.length > receivedAtKill);
    accepting = true;
    await waitFor('delivered', async () => (await delivery(second.url, id)).state === 'delivered');
    const after = await delivery(second.url, id);

    const attempts = after.attempts.filter((a) => !a.copy);
    // Numbered on without a gap or a repeat: 1, 2, …, N.
    expect(attempts.map((a) => a.n)).toEqual(attempts.map((_, i) => i + 1));
    // What was recorded before the kill is still there, unchanged (all but the newest, which
    // may not have been committed when the kill came).
    for (let i = 0; i < before.attempts.length - 1; i += 1) expect(attempts[i]).toEqual(before.attempts[i]);
    expect(attempts.length).toBeGreaterThan(before.attempts.length);
    expect(attempts.slice(0, -1).every((a) => a.status === 500)).toBe(true);
    expect(attempts.at(-1)!.status).toBe(200);
    expect(after.transaction_id).toBe(tx);
    // At least once: every recorded attempt reached the receiver; at most one more did (sent,
    // not yet recorded, when the process died), and every request carried the same transaction.
    expect(bank.received.length).toBeGreaterThanOrEqual(attempts.length);
    expect(bank.received.length).toBeLessThanOrEqual(attempts.length + 1);
    for (const r of bank.received) expect(JSON.parse(r.body)).toMatchObject({ transaction_id: tx });
    // Nothing more after delivered.
    const total = bank.received.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(bank.received).toHaveLength(total);
    expect((await second.child.stop()).code).toBe(0);
  }, 120_000);
});
