import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blankEvent, openEventStore } from '../../../electron/core/store';
import { EventHub } from '../../../electron/core/event-hub';
import { cleanup, lastEvent, post, startBank, type BankFixture } from './helpers';

let fx: BankFixture;
const prefix = '/api/svc/notify';

beforeAll(async () => {
  fx = await startBank();
});
afterAll(cleanup);

describe('notifications (spec 4.3)', () => {
  it('a valid one is stored durably before its 200 with no body; a repeat is still 200', async () => {
    const id = randomUUID();
    const r = await post(
      `${fx.url}${prefix}/pay-in`,
      JSON.stringify({ transaction_id: id, extra: 'junk is fine' }),
    );
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    // Already durable: a second store opened on the same folder sees it.
    const e = await lastEvent(fx.store, 'notification');
    expect(e).toMatchObject({
      kind: 'notification',
      path: `${prefix}/pay-in`,
      method: 'POST',
      transaction_id: id,
      outcome: 'accepted',
      status: 200,
    });
    expect(e.request?.body).toContain(id);
    // Every field of an event, in blankEvent's order: the stored JSON is the same however the
    // bank builds the event.
    expect(Object.keys(e)).toEqual(['id', ...Object.keys(blankEvent('notification', e.at))]);

    const again = await post(`${fx.url}${prefix}/transfer`, JSON.stringify({ transaction_id: id }));
    expect(again.status).toBe(200);
    expect(await lastEvent(fx.store, 'notification')).toMatchObject({
      transaction_id: id,
      outcome: 'repeat',
    });
  });

  it.each([
    ['not JSON', '{nope', 'application/json', /not valid JSON/],
    ['missing transaction_id', JSON.stringify({ id: 1 }), 'application/json', /no transaction_id/],
    ['non-UUID transaction_id', JSON.stringify({ transaction_id: 'abc' }), 'application/json', /not a UUID/],
    ['a number', JSON.stringify({ transaction_id: 5 }), 'application/json', /not a string/],
    ['an array', '[]', 'application/json', /not an object/],
    ['empty', '', 'application/json', /empty/],
  ])('%s: 400 with a JSON reason, recorded as rejected', async (_name, body, type, reason) => {
    const r = await post(`${fx.url}${prefix}/pay-out`, body, type);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'bad_request' });
    expect((r.body as { detail: string }).detail).toMatch(reason);
    const e = await lastEvent(fx.store, 'notification');
    expect(e).toMatchObject({ outcome: 'rejected', status: 400, path: `${prefix}/pay-out` });
  });

  it('a rejected notification, then sent right, is accepted (not a repeat)', async () => {
    const id = randomUUID();
    expect(
      (await post(`${fx.url}${prefix}/pay-in`, JSON.stringify({ transaction_id: id, x: [1, 2] }) + '}'))
        .status,
    ).toBe(400);
    expect(await lastEvent(fx.store, 'notification')).toMatchObject({ outcome: 'rejected' });
    expect((await post(`${fx.url}${prefix}/pay-in`, JSON.stringify({ transaction_id: id }))).status).toBe(
      200,
    );
    expect(await lastEvent(fx.store, 'notification')).toMatchObject({
      transaction_id: id,
      outcome: 'accepted',
    });
  });

  it('the non-UUID transaction_id is recorded as sent', async () => {
    await post(`${fx.url}${prefix}/pay-out`, JSON.stringify({ transaction_id: 'abc' }));
    expect(await lastEvent(fx.store, 'notification')).toMatchObject({
      transaction_id: 'abc',
      outcome: 'rejected',
    });
  });

  it('over 1 MiB: 413, recorded as rejected', async () => {
    const big = JSON.stringify({ transaction_id: randomUUID(), pad: 'x'.repeat(1024 * 1024 + 10) });
    const r = await post(`${fx.url}${prefix}/pay-in`, big);
    expect(r.status).toBe(413);
    expect(await lastEvent(fx.store, 'notification')).toMatchObject({ outcome: 'rejected', status: 413 });
  });

  it('wrong method: 405 with Allow: POST; unknown event under the prefix: 404; both rejected', async () => {
    const res = await fetch(`${fx.url}${prefix}/pay-in`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toMatchObject({ error: 'method_not_allowed' });
    expect(await lastEvent(fx.store, 'notification')).toMatchObject({ outcome: 'rejected', status: 405 });
    const r = await post(`${fx.url}${prefix}/refund`, JSON.stringify({ transaction_id: randomUUID() }));
    expect(r.status).toBe(404);
    expect(await lastEvent(fx.store, 'notification')).toMatchObject({ outcome: 'rejected', status: 404 });
  });

  it('the prefix is a setting (the guide uses /api/dcm/notify), kept in bank/settings.json', async () => {
    await fx.bank.setNotifyPrefix('/api/dcm/notify');
    const id = randomUUID();
    expect(
      (await post(`${fx.url}/api/dcm/notify/pay-in`, JSON.stringify({ transaction_id: id }))).status,
    ).toBe(200);
    expect((await post(`${fx.url}${prefix}/pay-in`, JSON.stringify({ transaction_id: id }))).status).toBe(
      404,
    );
    expect((await fx.bank.status()).notify_path_prefix).toBe('/api/dcm/notify');
    await expect(fx.bank.setNotifyPrefix('no-slash')).rejects.toThrow(/absolute path/);
    await fx.bank.setNotifyPrefix(prefix);
  });

  it('an acknowledged notification is on disk: a fresh store over the same folder has it, and repeats survive a restart', async () => {
    const id = randomUUID();
    expect((await post(`${fx.url}${prefix}/pay-in`, JSON.stringify({ transaction_id: id }))).status).toBe(
      200,
    );
    await fx.bank.close();
    await fx.store.close();
    const store = await openEventStore({ dataDir: fx.dir, events: new EventHub() });
    try {
      expect(store.hasTransaction(id)).toBe(true);
    } finally {
      await store.close();
    }
    const restarted = await startBank({ dir: fx.dir, sealer: fx.sealer });
    const r = await post(`${restarted.url}${prefix}/pay-in`, JSON.stringify({ transaction_id: id }));
    expect(r.status).toBe(200);
    expect(await lastEvent(restarted.store, 'notification')).toMatchObject({
      transaction_id: id,
      outcome: 'repeat',
    });
  });
});
