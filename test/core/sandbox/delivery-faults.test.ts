/**
 * Faults on demand (issue 27 item 2) against real receivers on 127.0.0.1, counting what each
 * received: duplicates spaced and concurrent, a lost acknowledgement, reordering with `sequence`;
 * and against the console's own bank endpoints, a duplicate delivery stored as one `accepted` and
 * the rest `repeat`.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { methods, type MethodOutput } from '../../../electron/contract';
import { Delivery } from '../../../electron/contract/schemas/delivery';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';
import { call, cleanup, fakeBank, makeBankKey, startWithCounterparty, tempDir } from './helpers';

let core: ConsoleCore | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
  await cleanup();
});

/** Polls the delivery until `done` holds (bounded: 100 polls, 10 s). */
async function until(base: string, id: string, done: (d: Delivery) => boolean): Promise<Delivery> {
  const deadline = Date.now() + 10_000;
  for (let i = 0; i < 100 && Date.now() < deadline; i += 1) {
    const d = Delivery.parse((await call(base, 'GET', `/sandbox/v1/deliveries/${id}`)).json);
    if (done(d)) return d;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`delivery ${id}: condition not met within 10 s`);
}

async function setup() {
  const times: number[] = [];
  const bank = await fakeBank((_req, res: ServerResponse) => {
    times.push(Date.now());
    res.writeHead(200);
    res.end();
  });
  const sb = await startWithCounterparty({
    timeScale: 0.01,
    urls: { bank_receiver_url: bank.url, bank_sender_url: `${bank.url}/s` },
  });
  const notify = (body: Record<string, unknown>) =>
    call(sb.url, 'POST', `/sandbox/v1/counterparties/${sb.guid}/notify`, {
      json: { event: 'pay-in', ...body },
    });
  return { bank, sb, notify, times };
}

describe('delivery faults', () => {
  it('duplicates: 3 more copies spaced 200 ms, the same body each time', async () => {
    const { bank, sb, notify, times } = await setup();
    const r = await notify({ faults: { duplicates: 3 } });
    const { delivery_id, transaction_id } = r.json as { delivery_id: string; transaction_id: string };
    const d = await until(sb.url, delivery_id, (x) => x.attempts.length === 4);
    expect(d.state).toBe('delivered');
    expect(d.attempts.filter((a) => a.copy)).toHaveLength(3);
    expect(bank.received).toHaveLength(4);
    expect(new Set(bank.received.map((x) => x.body))).toEqual(new Set([JSON.stringify({ transaction_id })]));
    // Spaced: copy k leaves no sooner than k × 200 ms after the first attempt left, on the engine's
    // own clock (arrivals at a receiver on a loaded machine jitter by tens of ms either way).
    const first = Date.parse(d.attempts.find((a) => !a.copy)!.at);
    const copies = d.attempts
      .filter((a) => a.copy)
      .map((a) => Date.parse(a.at))
      .sort((a, b) => a - b);
    copies.forEach((at, k) => expect(at - first, `copy ${k + 1}`).toBeGreaterThanOrEqual((k + 1) * 200 - 5));
    expect(times).toHaveLength(4);
  });

  it('duplicates concurrent: all copies at once', async () => {
    const { bank, sb, notify } = await setup();
    const r = await notify({ faults: { duplicates: 4, concurrent: true } });
    const d = await until(
      sb.url,
      (r.json as { delivery_id: string }).delivery_id,
      (x) => x.attempts.length === 5,
    );
    expect(d.attempts.filter((a) => a.copy && a.status === 200)).toHaveLength(4);
    expect(bank.received).toHaveLength(5);
  });

  it('lost_ack: the first answer is dropped, so the same transaction_id comes again', async () => {
    const { bank, sb, notify } = await setup();
    const r = await notify({ faults: { lost_ack: true } });
    const body = r.json as { delivery_id: string; transaction_id: string };
    const d = await until(sb.url, body.delivery_id, (x) => x.state !== 'delivering');
    expect(d.state).toBe('delivered');
    expect(d.attempts.map((a) => a.status)).toEqual([null, 200]);
    expect(d.attempts[0]!.error).toMatch(/status line \(200\).*lost/);
    expect(bank.received.map((x) => JSON.parse(x.body).transaction_id)).toEqual([
      body.transaction_id,
      body.transaction_id,
    ]);
  });

  it('sequence: a pay-out before its pay-in, one transaction_id, in that order', async () => {
    const { bank, notify } = await setup();
    const r = await notify({ event: 'pay-out', sequence: [{ event: 'pay-in' }] });
    expect(r.status).toBe(200);
    const body = r.json as { transaction_id: string; sequence: Array<{ event: string; status: number }> };
    expect(body.sequence).toMatchObject([{ event: 'pay-in', status: 200 }]);
    expect(bank.received.map((x) => [x.url, JSON.parse(x.body).transaction_id])).toEqual([
      ['/s/api/svc/notify/pay-out', body.transaction_id],
      ['/api/svc/notify/pay-in', body.transaction_id],
    ]);
  });

  it('refuses faults out of range naming the field', async () => {
    const { notify, bank } = await setup();
    const r = await notify({ faults: { duplicates: 11 } });
    expect(r.status).toBe(400);
    expect(r.text).toContain('duplicates');
    const t = await notify({ faults: { timeout_ms: 50 } });
    expect(t.status).toBe(400);
    expect(t.text).toContain('timeout_ms');
    expect(bank.received).toHaveLength(0);
  });

  it('against the console’s own bank: duplicates stored as one accepted and the rest repeat', async () => {
    core = await createConsoleCore({
      dataDir: await tempDir(),
      host: 'cli',
      env: { DETS_VAULT_PASSPHRASE: 'delivery faults test' },
      timeScale: 0.01,
    });
    const c = core;
    const dispatch = async <M extends keyof typeof methods>(method: M, input?: unknown) => {
      const envelope = await c.dispatch(method, input);
      if (!envelope.ok) throw new Error(`${method}: ${envelope.error.message}`);
      return methods[method].output.parse(envelope.value) as MethodOutput<M>;
    };
    await c.listenSandbox({ host: '127.0.0.1', port: 0 });
    const bank = await c.listenBank({ host: '127.0.0.1', port: 0 });
    const { counterparty_guid } = await dispatch('sandbox.onboard', { jwk: (await makeBankKey()).jwk });
    await dispatch('sandbox.updateCounterparty', { counterparty_guid, bank_receiver_url: bank.url });
    const sent = await dispatch('sandbox.notify', {
      counterparty_guid,
      event: 'pay-in',
      faults: { duplicates: 3, concurrent: true },
    });
    const deadline = Date.now() + 10_000;
    let d = await dispatch('sandbox.delivery', { delivery_id: sent.delivery_id });
    while (d.attempts.length < 4 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      d = await dispatch('sandbox.delivery', { delivery_id: sent.delivery_id });
    }
    expect(d.attempts.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    await (await c.store()).flush();
    const page = await dispatch('events.query', { kind: 'notification' });
    const outcomes = page.events
      .filter((e) => e.transaction_id === sent.transaction_id)
      .map((e) => e.outcome);
    expect(outcomes.sort()).toEqual(['accepted', 'repeat', 'repeat', 'repeat']);
  });
});
