/**
 * The service's retry ladder (issue 27 item 1), played by the sandbox against real receivers on
 * 127.0.0.1 at `--time-scale 0.01`: 1, 2, 4, 8, 16, 32 s then 60 s become 10, 20, 40, 80, 160,
 * 320 then 600 ms. Attempt times are checked against the plan with a loose upper tolerance
 * (a shared 2-core machine): never earlier than planned, never seconds late.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Delivery } from '../../../electron/contract/schemas/delivery';
import { call, cleanup, fakeBank, startSandbox, startWithCounterparty, type FakeBank } from './helpers';

afterEach(cleanup);

const SCALE = 0.01;
/** Waits before attempts 2…10 at SCALE, ms. */
const WAITS = [1, 2, 4, 8, 16, 32, 60, 60, 60].map((s) => s * 1000 * SCALE);
/** How late an attempt may be on a loaded machine before the test calls the scheduler wrong. */
const LATE_MS = 1500;

/** A receiver answering each request with the next status of `statuses` (the last one repeats). */
async function receiver(statuses: Array<number | 'hold'>): Promise<FakeBank> {
  let i = 0;
  return fakeBank((_req, res: ServerResponse) => {
    const s = statuses[Math.min(i, statuses.length - 1)]!;
    i += 1;
    if (s === 'hold') return; // never answered: the attempt must time out
    res.writeHead(s);
    res.end();
  });
}

async function getDelivery(base: string, id: string): Promise<Delivery> {
  const r = await call(base, 'GET', `/sandbox/v1/deliveries/${id}`);
  expect(r.status).toBe(200);
  return Delivery.parse(r.json);
}

/** Polls until the delivery leaves `delivering` (bounded: 200 polls, 20 s). */
async function settled(base: string, id: string): Promise<Delivery> {
  const deadline = Date.now() + 20_000;
  for (let i = 0; i < 200 && Date.now() < deadline; i += 1) {
    const d = await getDelivery(base, id);
    if (d.state !== 'delivering') return d;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`delivery ${id} still delivering after 20 s`);
}

/** Each retry started no earlier than its planned wait after the previous attempt ended, and not much later. */
function expectOnLadder(d: Delivery): void {
  const attempts = d.attempts.filter((a) => !a.copy);
  for (let k = 1; k < attempts.length; k += 1) {
    const prev = attempts[k - 1]!;
    const ended = Date.parse(prev.at) + prev.duration_ms;
    const gap = Date.parse(attempts[k]!.at) - ended;
    // ms clocks (Date) against a sub-ms duration: 2 ms of rounding either way.
    expect(gap).toBeGreaterThanOrEqual(WAITS[k - 1]! - 2);
    expect(gap).toBeLessThan(WAITS[k - 1]! + LATE_MS);
  }
}

async function setup(statuses: Array<number | 'hold'>) {
  const bank = await receiver(statuses);
  const sb = await startWithCounterparty({ timeScale: SCALE, urls: { bank_receiver_url: bank.url } });
  const notify = (body: Record<string, unknown> = {}) =>
    call(sb.url, 'POST', `/sandbox/v1/counterparties/${sb.guid}/notify`, {
      json: { event: 'pay-in', ...body },
    });
  return { bank, sb, notify };
}

describe('the delivery ladder at --time-scale 0.01', () => {
  it('500, 500, 200: delivered after three attempts at the scaled waits', async () => {
    const { bank, sb, notify } = await setup([500, 500, 200]);
    const r = await notify();
    expect(r.status).toBe(200);
    const first = r.json as { delivery_id: string; status: number; transaction_id: string };
    expect(first.status).toBe(500);
    const d = await settled(sb.url, first.delivery_id);
    expect(d.state).toBe('delivered');
    expect(d.next_at).toBeNull();
    expect(d.attempts.map((a) => [a.n, a.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
    expect(d.attempts.map((a) => a.failed_check)).toEqual(['status', 'status', null]);
    expectOnLadder(d);
    expect(bank.received).toHaveLength(3);
    expect(new Set(bank.received.map((x) => x.body))).toEqual(
      new Set([JSON.stringify({ transaction_id: first.transaction_id })]),
    );
  });

  it('always 503: escalated after 10 attempts, and the escalation is announced', async () => {
    const { bank, sb, notify } = await setup([503]);
    const r = await notify();
    const d = await settled(sb.url, (r.json as { delivery_id: string }).delivery_id);
    expect(d.state).toBe('escalated');
    expect(d.attempts).toHaveLength(10);
    expect(d.attempts.every((a) => a.status === 503)).toBe(true);
    expectOnLadder(d);
    expect(bank.received).toHaveLength(10);
    const notices = sb.emitted.filter(
      (e) =>
        e.event === 'app.noticed' && String((e.payload as { message: string }).message).includes('escalated'),
    );
    expect(notices).toHaveLength(1);
    // An event of its own (issue 27 item 3), once, carrying the delivery with its ten attempts.
    const escalated = sb.emitted.filter((e) => e.event === 'sandbox.escalated');
    expect(escalated).toHaveLength(1);
    const announced = Delivery.parse(escalated[0]!.payload);
    expect([announced.delivery_id, announced.state, announced.attempts.length]).toEqual([
      d.delivery_id,
      'escalated',
      10,
    ]);
    // Nothing more comes after the escalation.
    await new Promise((res) => setTimeout(res, WAITS[8]! * 2));
    expect(bank.received).toHaveLength(10);
  });

  it('a 409 is retried like any other failure', async () => {
    const { sb, notify } = await setup([409, 200]);
    const r = await notify();
    const d = await settled(sb.url, (r.json as { delivery_id: string }).delivery_id);
    expect(d.state).toBe('delivered');
    expect(d.attempts.map((a) => a.status)).toEqual([409, 200]);
    expectOnLadder(d);
  });

  it('an attempt held open past the timeout counts as unanswered and is retried', async () => {
    const { bank, sb, notify } = await setup(['hold', 200]);
    const r = await notify({ faults: { timeout_ms: 2000 } });
    const body = r.json as { delivery_id: string; status: number | null; error: string };
    // The first attempt had no answer: the route says so (502, bank_unreachable) with the delivery.
    expect(r.status).toBe(502);
    expect(body.error).toBe('bank_unreachable');
    const d = await settled(sb.url, body.delivery_id);
    expect(d.state).toBe('delivered');
    expect(d.attempts[0]).toMatchObject({ n: 1, status: null, failed_check: 'reachable' });
    // 2,000 ms × 0.01 is under the floor: 1,000 ms.
    expect(d.attempts[0]!.error).toBe('no answer within 1000 ms');
    expect(d.attempts[0]!.duration_ms).toBeGreaterThanOrEqual(999);
    expect(d.attempts[1]).toMatchObject({ n: 2, status: 200 });
    expectOnLadder(d);
    expect(bank.received).toHaveLength(2);
  });

  it('"once" makes one attempt and escalates', async () => {
    const { bank, sb, notify } = await setup([500]);
    const r = await notify({ ladder: 'once' });
    const d = await settled(sb.url, (r.json as { delivery_id: string }).delivery_id);
    expect(d).toMatchObject({ state: 'escalated', ladder: 'once' });
    expect(d.attempts).toHaveLength(1);
    expect(bank.received).toHaveLength(1);
  });

  it('a restart in the middle of a ladder resumes it where it was', async () => {
    // 500 four times, then 200: the sandbox stops after attempt 2 and the rest happens after it restarts.
    const bank = await receiver([500, 500, 500, 500, 200]);
    const first = await startWithCounterparty({ timeScale: SCALE, urls: { bank_receiver_url: bank.url } });
    const r = await call(first.url, 'POST', `/sandbox/v1/counterparties/${first.guid}/notify`, {
      json: { event: 'pay-in' },
    });
    const id = (r.json as { delivery_id: string }).delivery_id;
    const deadline = Date.now() + 10_000;
    while (bank.received.length < 2 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 5));
    await first.close();
    const before = bank.received.length;
    expect(before).toBeGreaterThanOrEqual(2);
    expect(before).toBeLessThan(5);
    // Down for longer than the next wait: the attempt due meanwhile goes as soon as it is back.
    await new Promise((res) => setTimeout(res, 300));
    expect(bank.received).toHaveLength(before);

    const second = await startSandbox({ dataDir: first.dataDir, timeScale: SCALE });
    const d = await settled(second.url, id);
    expect(d.state).toBe('delivered');
    expect(d.attempts.map((a) => a.n)).toEqual([1, 2, 3, 4, 5]);
    expect(d.attempts.map((a) => a.status)).toEqual([500, 500, 500, 500, 200]);
    expect(bank.received).toHaveLength(5);
    const list = await call(second.url, 'GET', `/sandbox/v1/deliveries?state=delivered`);
    expect((list.json as Delivery[]).map((x) => x.delivery_id)).toContain(id);
  });

  it('GET of an unknown or malformed delivery id is 404 or 400 naming it', async () => {
    const sb = await startSandbox({ timeScale: SCALE });
    const missing = await call(sb.url, 'GET', `/sandbox/v1/deliveries/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    const bad = await call(sb.url, 'GET', '/sandbox/v1/deliveries/not-a-guid');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('delivery_id');
    const badState = await call(sb.url, 'GET', '/sandbox/v1/deliveries?state=lost');
    expect(badState.status).toBe(400);
    expect(badState.text).toContain('state');
  });
});
