/** Notifications on demand (spec 4.3, 6): routing by event, UUID bodies, the path prefix setting. */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { NotifyWire } from '../../../electron/core/sandbox/wire';
import {
  call,
  cleanup,
  closedPort,
  errorOf,
  fakeBank,
  startWithCounterparty,
  type FakeBank,
} from './helpers';

afterEach(cleanup);

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function setup() {
  const ok = (_: unknown, res: ServerResponse) => {
    res.writeHead(200);
    res.end();
  };
  const sender: FakeBank = await fakeBank(ok);
  const receiver: FakeBank = await fakeBank(ok);
  const sb = await startWithCounterparty({
    urls: { bank_sender_url: `${sender.url}/s`, bank_receiver_url: receiver.url },
  });
  const notify = (body: unknown) =>
    call(sb.url, 'POST', `/sandbox/v1/counterparties/${sb.guid}/notify`, { json: body });
  return { sender, receiver, sb, notify };
}

describe('POST /sandbox/v1/counterparties/{guid}/notify', () => {
  it('sends pay-in to the receiving bank with a fresh UUID v4 transaction_id', async () => {
    const { sender, receiver, notify } = await setup();
    const r = await notify({ event: 'pay-in' });
    expect(r.status).toBe(200);
    const body = NotifyWire.parse(r.json);
    expect(body.transaction_id).toMatch(UUID_V4);
    expect(body.url).toBe(`${receiver.url}/api/svc/notify/pay-in`);
    expect(body.status).toBe(200);
    expect(body.duration_ms).toBeGreaterThanOrEqual(0);
    expect(body.trace.every((step) => step.status === 'passed')).toBe(true);
    expect(sender.received).toHaveLength(0);
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect([got.method, got.url, got.headers['content-type']]).toEqual([
      'POST',
      '/api/svc/notify/pay-in',
      'application/json',
    ]);
    expect(JSON.parse(got.body)).toEqual({ transaction_id: body.transaction_id });
  });

  it('sends pay-out to the sending bank, keeping a given transaction_id', async () => {
    const { sender, receiver, notify } = await setup();
    const id = crypto.randomUUID();
    const r = await notify({ event: 'pay-out', transaction_id: id });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      transaction_id: id,
      url: `${sender.url}/s/api/svc/notify/pay-out`,
      status: 200,
    });
    expect(receiver.received).toHaveLength(0);
    expect(sender.received.map((x) => [x.url, JSON.parse(x.body)])).toEqual([
      ['/s/api/svc/notify/pay-out', { transaction_id: id }],
    ]);
  });

  it('sends transfer to the side asked for, and needs `to`', async () => {
    const { sender, receiver, notify } = await setup();
    expect((await notify({ event: 'transfer', to: 'sender' })).status).toBe(200);
    expect((await notify({ event: 'transfer', to: 'receiver' })).status).toBe(200);
    expect(sender.received.map((x) => x.url)).toEqual(['/s/api/svc/notify/transfer']);
    expect(receiver.received.map((x) => x.url)).toEqual(['/api/svc/notify/transfer']);
    const missing = await notify({ event: 'transfer' });
    expect(missing.status).toBe(400);
    expect(errorOf(missing)).toMatchObject({
      error: 'bad_request',
      detail: expect.stringMatching(/^to is required/),
    });
    const wrongSide = await notify({ event: 'pay-in', to: 'sender' });
    expect(wrongSide.status).toBe(400);
    expect(errorOf(wrongSide).detail).toMatch(/^to: a pay-in notification always goes to the receiving bank/);
  });

  it('follows the notify_path_prefix setting (the guide uses /api/dcm/notify)', async () => {
    const { receiver, notify, sb } = await setup();
    const settings = await call(sb.url, 'PATCH', '/sandbox/v1/settings', {
      json: { notify_path_prefix: '/api/dcm/notify' },
    });
    expect(settings.status).toBe(200);
    await notify({ event: 'pay-in' });
    expect(receiver.received.map((x) => x.url)).toEqual(['/api/dcm/notify/pay-in']);
  });

  it('refuses a bad event, a non-UUID transaction_id and a missing URL with 400 naming the field', async () => {
    const { notify, sb } = await setup();
    const event = await notify({ event: 'refund' });
    expect(event.status).toBe(400);
    expect(errorOf(event).detail).toMatch(/event/);
    const id = await notify({ event: 'pay-in', transaction_id: 'tx-1' });
    expect(id.status).toBe(400);
    expect(errorOf(id).detail).toMatch(/transaction_id/);
    await sb.sandbox.updateCounterparty({ counterparty_guid: sb.guid, bank_receiver_url: null });
    const noUrl = await notify({ event: 'pay-in' });
    expect(noUrl.status).toBe(400);
    expect(errorOf(noUrl).detail).toMatch(/^the counterparty has no bank_receiver_url/);
  });

  it('answers 502 bank_unreachable when the bank cannot be reached', async () => {
    const port = await closedPort();
    const sb = await startWithCounterparty({ urls: { bank_receiver_url: `http://127.0.0.1:${port}` } });
    const id = crypto.randomUUID();
    const r = await call(sb.url, 'POST', `/sandbox/v1/counterparties/${sb.guid}/notify`, {
      json: { event: 'pay-in', transaction_id: id },
    });
    expect(r.status).toBe(502);
    expect(r.json).toMatchObject({
      error: 'bank_unreachable',
      detail: expect.stringMatching(/connection refused/),
      transaction_id: id,
      url: `http://127.0.0.1:${port}/api/svc/notify/pay-in`,
      duration_ms: expect.any(Number),
    });
    const [trace] = await sb.sandbox.traces();
    expect(trace).toMatchObject({ kind: 'notify', ok: false, failed: 'delivered' });
  });

  it('reports a non-200 answer as delivered with a failed status step', async () => {
    const bank = await fakeBank((_r, res) => {
      res.writeHead(500);
      res.end('boom');
    });
    const sb = await startWithCounterparty({ urls: { bank_receiver_url: bank.url } });
    const result = await sb.sandbox.notify({ counterparty_guid: sb.guid, event: 'pay-in' });
    expect(result).toMatchObject({ status: 500, error: null });
    expect(result.trace).toMatchObject({ ok: false, failed: 'status' });
    expect(result.trace.steps[0]?.response?.body).toBe('boom');
  });
});
