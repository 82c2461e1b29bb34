/**
 * The scenario runner's plain-HTTP delivery (core/scenario/delivery.ts), the stand-in for the
 * sandbox's delivery engine until issue 27's lands: against a real 127.0.0.1 server, a lost
 * acknowledgement is an unanswered attempt followed by the same body again, duplicates are
 * that many more copies (spaced, or at once), and a bank that does not answer within the
 * scaled timeout is an attempt without a status.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpDelivery } from '../../../electron/core/scenario';

let server: http.Server;
let url = '';
const bodies: string[] = [];
let hang = false;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      bodies.push(body);
      if (!hang) res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/svc/notify/pay-in`;
});
afterAll(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));

const BODY = JSON.stringify({ transaction_id: '5f0b8c7e-2d7a-4d43-9a55-0f1f8f1b2c3d' });

describe('httpDelivery', () => {
  it('a lost ack: the first attempt counts as unanswered, the same body comes again and is answered', async () => {
    bodies.length = 0;
    const { attempts } = await httpDelivery.deliver({
      url,
      body: BODY,
      faults: { lost_ack: true },
      timeScale: 1,
    });
    expect(attempts.map((a) => [a.n, a.status])).toEqual([
      [1, null],
      [2, 200],
    ]);
    expect(attempts[0]!.error).toMatch(/acknowledgement \(200\) was lost/);
    expect(bodies).toEqual([BODY, BODY]);
  });

  it('duplicates, spaced and at once: that many more copies of the same body', async () => {
    bodies.length = 0;
    const spaced = await httpDelivery.deliver({ url, body: BODY, faults: { duplicates: 2 }, timeScale: 0.1 });
    expect(spaced.attempts.map((a) => a.role)).toEqual(['first', 'duplicate', 'duplicate']);
    const atOnce = await httpDelivery.deliver({
      url,
      body: BODY,
      faults: { duplicates: 4, concurrent: true },
      timeScale: 1,
    });
    expect(atOnce.attempts).toHaveLength(5);
    expect(atOnce.attempts.every((a) => a.status === 200)).toBe(true);
    expect(bodies).toHaveLength(8);
  });

  it('no answer within the (scaled) timeout: an attempt without a status, saying why', async () => {
    hang = true;
    try {
      const { attempts } = await httpDelivery.deliver({
        url,
        body: BODY,
        faults: { timeout_ms: 1000 },
        timeScale: 0.2,
      });
      expect(attempts).toHaveLength(1);
      expect(attempts[0]!.status).toBeNull();
      expect(attempts[0]!.error).toBeTruthy();
    } finally {
      hang = false;
      server.closeAllConnections();
    }
  });
});
