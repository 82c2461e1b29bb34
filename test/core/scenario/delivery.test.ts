/**
 * Scenario notification steps on the sandbox's delivery engine (core/scenario/delivery.ts, issue
 * 28 item 3), against a real 127.0.0.1 bank and a real SQLite folder: a lost acknowledgement is
 * an unanswered first attempt and then the ladder's retry of the same body; duplicates are that
 * many more copies (spaced or at once), all waited for; a bank that keeps failing is retried on
 * the service's ladder (scaled by the run's time scale) until the delivery escalates, and a step
 * whose delivery escalates fails; a `once` ladder makes one attempt. The deliveries are the
 * engine's own: they are in its database after the run.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  engineDelivery,
  startScenarioKeys,
  type NotificationDelivery,
  type RunContext,
  type ScenarioKeys,
} from '../../../electron/core/scenario';
import { runNotifyStep } from '../../../electron/core/scenario/notify-step';
import { DELIVERY_SETTING_DEFAULTS, DeliveryEngine } from '../../../electron/core/sandbox';

let server: http.Server;
let base = '';
let url = '';
const bodies: string[] = [];
/** What the bank answers next, one status per request (then 200); `hang`: never answers. */
let script: Array<number | 'hang'> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      bodies.push(body);
      const next = script.shift() ?? 200;
      if (next !== 'hang') res.writeHead(next).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  url = `${base}/api/svc/notify/pay-in`;
});
afterAll(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));

const TX = '5f0b8c7e-2d7a-4d43-9a55-0f1f8f1b2c3d';
const BODY = JSON.stringify({ transaction_id: TX });

let dataDir = '';
let delivery: NotificationDelivery;
beforeEach(async () => {
  bodies.length = 0;
  script = [];
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dets-scenario-delivery-test-'));
  // 0.01: the ladder's 1 s, 2 s, … waits become 10 ms, 20 ms, … (timeouts never under 1 s).
  delivery = engineDelivery({ dataDir, timeScale: 0.01 });
});
afterEach(async () => {
  await delivery.close();
  server.closeAllConnections();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const request = (over: Partial<Parameters<NotificationDelivery['deliver']>[0]> = {}) => ({
  url,
  body: BODY,
  event: 'pay-in' as const,
  transaction_id: TX,
  faults: {},
  ladder: 'service' as const,
  ...over,
});

describe('engineDelivery', () => {
  it('a lost ack: the first attempt counts as unanswered, the ladder sends the same body again', async () => {
    const { state, attempts } = await delivery.deliver(request({ faults: { lost_ack: true } }));
    expect(state).toBe('delivered');
    expect(attempts.map((a) => [a.n, a.role, a.status])).toEqual([
      [1, 'first, ack lost', null],
      [2, 'retry 2', 200],
    ]);
    expect(attempts[0]!.error).toMatch(/acknowledgement was lost/);
    expect(bodies).toEqual([BODY, BODY]);
  });

  it('duplicates, spaced and at once: that many more copies of the same body, every one waited for', async () => {
    const spaced = await delivery.deliver(request({ faults: { duplicates: 2 } }));
    expect(spaced.attempts.map((a) => a.role)).toEqual(['first', 'duplicate', 'duplicate']);
    const atOnce = await delivery.deliver(request({ faults: { duplicates: 4, concurrent: true } }));
    expect(atOnce.attempts.map((a) => a.role).sort()).toEqual([
      'duplicate, at once',
      'duplicate, at once',
      'duplicate, at once',
      'duplicate, at once',
      'first',
    ]);
    expect(atOnce.attempts.every((a) => a.status === 200)).toBe(true);
    expect(bodies).toEqual(Array(8).fill(BODY));
  });

  it('a failing bank is retried on the service ladder until it answers 200', async () => {
    script = [500, 503];
    const { state, attempts } = await delivery.deliver(request());
    expect(state).toBe('delivered');
    expect(attempts.map((a) => [a.role, a.status])).toEqual([
      ['first', 500],
      ['retry 2', 503],
      ['retry 3', 200],
    ]);
  });

  it('a bank that always fails: ten attempts, then the delivery escalates', async () => {
    script = Array(10).fill(500);
    const { state, attempts } = await delivery.deliver(request());
    expect(state).toBe('escalated');
    expect(attempts).toHaveLength(DELIVERY_SETTING_DEFAULTS.delivery_max_attempts);
    expect(bodies).toHaveLength(10);
  });

  it('no answer within the (scaled) timeout on a `once` ladder: one attempt without a status, escalated', async () => {
    script = ['hang'];
    const { state, attempts } = await delivery.deliver(
      request({ faults: { timeout_ms: 1000 }, ladder: 'once' }),
    );
    expect(state).toBe('escalated');
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.status).toBeNull();
    expect(attempts[0]!.error).toMatch(/no answer within/);
  });

  it("the deliveries are the engine's own: stored in the run's folder with every attempt", async () => {
    await delivery.deliver(request({ faults: { duplicates: 1 } }));
    await delivery.close();
    const engine = DeliveryEngine.open({ dataDir, settings: () => DELIVERY_SETTING_DEFAULTS });
    try {
      const [stored] = engine.list({ transaction_id: TX });
      expect(stored?.state).toBe('delivered');
      expect(stored?.attempts.map((a) => a.copy === true)).toEqual([false, true]);
    } finally {
      await engine.close();
    }
  });
});

describe('a notification step on the engine', () => {
  let keys: ScenarioKeys;
  beforeAll(async () => {
    keys = await startScenarioKeys(0);
  });
  afterAll(() => keys.close());
  const ctx = (): RunContext => ({
    keys,
    target: { bankAuthUrl: null, notifyUrl: base },
    delivery,
    giveUpMs: 5000,
    rotated: null,
  });

  it('an escalated delivery fails the step, even when the copies were answered 200', async () => {
    // The first attempt's ack is lost and the `once` ladder never retries: the service would
    // hand it to manual processing, though the bank answered every copy.
    const step = {
      name: 'pay-in',
      kind: 'notification' as const,
      event: 'pay-in' as const,
      faults: { lost_ack: true, duplicates: 1 },
      ladder: 'once' as const,
    };
    const outcome = await runNotifyStep(ctx(), step, '/api/svc/notify', randomUUID());
    expect(outcome.status).toBe('failed');
    expect(outcome.failed_check).toBe('delivered');
    expect(outcome.detail).toMatch(/escalated/);
  });

  it('a malformed body goes once by default and passes when refused', async () => {
    script = [400];
    const step = {
      name: 'bad',
      kind: 'notification' as const,
      event: 'pay-in' as const,
      malformed: 'not-json' as const,
    };
    const outcome = await runNotifyStep(ctx(), step, '/api/svc/notify', undefined);
    expect(outcome.status).toBe('passed');
    expect(bodies).toHaveLength(1);
  });
});
