import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_CHECK_IDS } from '../../../electron/contract/schemas/inspector';
import {
  CUSTOMER,
  claims,
  cleanup,
  eventCount,
  get,
  lastEvent,
  post,
  serviceJwt,
  startBackend,
  startBank,
  type BankFixture,
} from './helpers';

let fx: BankFixture;
let callbacks = 0;

beforeAll(async () => {
  fx = await startBank();
});
afterAll(cleanup);
afterEach(async () => {
  await fx.bank.setForward({ url: null });
  await fx.bank.setBehaviours({});
});

async function event() {
  callbacks += 1;
  await eventCount(fx.store, 'callback', callbacks);
  return lastEvent(fx.store, 'callback');
}

const verdicts = (e: { forward: { verdicts: Array<{ id: string; status: string }> } | null }) =>
  Object.fromEntries((e.forward?.verdicts ?? []).map((v) => [v.id, v.status]));

describe('forward mode', () => {
  it('passes the callback on with the same X-Session-ID, answers with the backend, and judges it', async () => {
    const backend = await startBackend(async () => ({
      status: 200,
      body: JSON.stringify({ external_id: 'b-1', phone: '1', key: 'backend-secret-key' }),
    }));
    await fx.bank.setForward({ url: backend.url });
    const token = await serviceJwt(fx.key);
    const r = await get(`${fx.url}/user_auth`, token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ external_id: 'b-1', phone: '1', key: 'backend-secret-key' });
    expect(backend.requests[0]).toMatchObject({ method: 'GET', url: '/user_auth' });
    expect(backend.requests[0]?.headers['x-session-id']).toBe(token);
    const e = await event();
    expect(e.forward).toMatchObject({ url: `${backend.url}/user_auth`, status: 200, error: null });
    // The one answer judge's checks, in order (issue 24), all passed; the event passed.
    expect(e.forward?.verdicts.map((v) => [v.id, v.status])).toEqual(
      ANSWER_CHECK_IDS.map((id) => [id, 'passed']),
    );
    expect(e.failed_check).toBeNull();
    expect(JSON.stringify(e.forward)).not.toContain('backend-secret-key');
    expect(e.response?.body).not.toContain('backend-secret-key');
  });

  it('flags a slow backend (1.3 s) over the 1 s budget', async () => {
    const backend = await startBackend(async () => {
      await new Promise((r) => setTimeout(r, 1300));
      return { status: 200, body: JSON.stringify({ key: 'k' }) };
    });
    await fx.bank.setForward({ url: backend.url });
    const r = await get(`${fx.url}/key`, await serviceJwt(fx.key));
    expect(r.status).toBe(200);
    const e = await event();
    expect(verdicts(e).budget).toBe('failed');
    // The same judge decides the callback's own verdict: over the budget is a failure, `budget`.
    expect(e.failed_check).toBe('budget');
    expect(e.checks?.find((c) => c.id === 'budget')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/over the 1 s budget/),
    });
  });

  it('flags a missing required field', async () => {
    const backend = await startBackend(async () => ({
      status: 200,
      body: JSON.stringify({ external_id: 'x', key: 'k' }),
    }));
    await fx.bank.setForward({ url: backend.url });
    await get(`${fx.url}/user_auth`, await serviceJwt(fx.key));
    const e = await event();
    expect(verdicts(e).phone).toBe('failed');
    expect(e.forward?.verdicts.find((v) => v.id === 'phone')?.detail).toBe('phone missing');
    // One verdict: the callback's event fails the same check, with the same words.
    expect(e.failed_check).toBe('phone');
    expect(e.checks?.find((c) => c.status === 'failed')).toMatchObject({
      id: 'phone',
      detail: 'phone missing',
    });
  });

  it('passes a 500 on and flags it', async () => {
    const backend = await startBackend(async () => ({ status: 500, body: 'boom', type: 'text/plain' }));
    await fx.bank.setForward({ url: backend.url });
    const r = await get(`${fx.url}/external_id`, await serviceJwt(fx.key));
    expect(r.status).toBe(500);
    expect(r.text).toBe('boom');
    const e = await event();
    expect(verdicts(e).status).toBe('failed');
    expect(e.failed_check).toBe('status');
  });

  it('flags a backend that answers 200 to a token that fails a check', async () => {
    const backend = await startBackend(async () => ({ status: 200, body: JSON.stringify({ key: 'k' }) }));
    await fx.bank.setForward({ url: backend.url });
    await get(`${fx.url}/key`, await serviceJwt(fx.key, claims({ flow: 'nope' })));
    const e = await event();
    // The token check that failed decides; the backend's 200 is a failed status beside it.
    expect(e.failed_check).toBe('flow');
    expect(verdicts(e).status).toBe('failed');
    expect(e.warning).toMatch(
      /answered 200 to a token that fails flow: the bank accepts a token it must refuse/,
    );
  });

  it('an unreachable backend: 502, flagged', async () => {
    await fx.bank.setForward({ url: 'http://127.0.0.1:9' });
    const r = await get(`${fx.url}/key`, await serviceJwt(fx.key));
    expect(r.status).toBe(502);
    const e = await event();
    expect(verdicts(e).reachable).toBe('failed');
    expect(e.failed_check).toBe('reachable');
  });

  it('passes a notification on with the same body, stored durably with its verdicts', async () => {
    const backend = await startBackend(async () => ({ status: 200 }));
    await fx.bank.setForward({ url: backend.url });
    const body = JSON.stringify({ transaction_id: randomUUID() });
    const r = await post(`${fx.url}/api/svc/notify/pay-in`, body);
    expect(r.status).toBe(200);
    expect(backend.requests[0]).toMatchObject({ method: 'POST', url: '/api/svc/notify/pay-in', body });
    const e = await lastEvent(fx.store, 'notification');
    expect(e.outcome).toBe('accepted');
    expect(verdicts(e)).toEqual({ reachable: 'passed', budget: 'passed', status: 'passed' });
  });
});

describe('behaviours (off by default, visible in status)', () => {
  it('omit a field, an over-long external_id, a fixed status, a delay', async () => {
    expect((await fx.bank.status()).behaviours).toEqual({});
    await fx.bank.setBehaviours({
      user_auth: { omit_field: 'phone' },
      external_id: { long_external_id: true },
    });
    expect((await fx.bank.status()).behaviours).toEqual({
      user_auth: { omit_field: 'phone' },
      external_id: { long_external_id: true },
    });
    const token = await serviceJwt(fx.key);
    const ua = await get(`${fx.url}/user_auth`, token);
    expect(ua.status).toBe(200);
    expect(ua.body).not.toHaveProperty('phone');
    // The console's own answer is judged (issue 24): the behaviour's answer fails `phone`.
    expect((await event()).failed_check).toBe('phone');
    const ext = await get(`${fx.url}/external_id`, token);
    const id = (ext.body as { external_id: string }).external_id;
    expect([...id].length).toBe(501);
    expect(id.startsWith(CUSTOMER.external_id)).toBe(true);
    expect((await event()).failed_check).toBe('external_id_length');

    await fx.bank.setBehaviours({ key: { status: 503, delay_ms: 150 } });
    const t0 = Date.now();
    const k = await get(`${fx.url}/key`, token);
    expect(k.status).toBe(503);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect(await event()).toMatchObject({ status: 503, failed_check: 'status' });
  });

  it('refuses behaviours for unknown routes or fields that do not apply', async () => {
    await expect(fx.bank.setBehaviours({ nope: { delay_ms: 1 } })).rejects.toThrow(/unknown route/);
    await expect(fx.bank.setBehaviours({ key: { omit_field: 'key' } })).rejects.toThrow(/user_auth only/);
  });

  it('emits bank.changed on changes', async () => {
    const seen: unknown[] = [];
    const off = fx.events.on('bank.changed', (s) => seen.push(s));
    await fx.bank.setBehaviours({ 'pay-in': { delay_ms: 5 } });
    off();
    // The listener's URL is in every status the event carries (issue 13 item 3).
    expect(seen[0]).toMatchObject({ url: fx.url, behaviours: { 'pay-in': { delay_ms: 5 } } });
  });
});
