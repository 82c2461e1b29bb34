/**
 * Requests from web pages refused by the bank endpoints, and a flood of them (issue 24 items 4
 * and 9; DESIGN.md "Bank endpoints": "Requests that carry an `Origin` header (only browsers send
 * one; the service never does) are refused with 403 and kept as compact refused records";
 * retention is per kind and what is refused "cannot crowd out what was acknowledged"). The issue
 * saw pages on other origins "fill the `rejected` cap with no-cors POSTs": here the rejected cap
 * is small and holds three real rejections, and a bounded flood of Origin requests of every kind
 * must leave them, and every acknowledged notification, where they are.
 *
 * Real parts: the bank on 127.0.0.1 with its event store; node:http requests (the Origin header
 * exactly as given), 16 keep-alive connections, 1,200 flood requests.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../support/raw-http';
import { createConsoleCore } from '../../../electron/core/console-core';
import { CUSTOMER, cleanup, serviceJwt, startBank, tempDir } from './helpers';

afterAll(cleanup);

const prefix = '/api/svc/notify';
const ORIGIN = 'https://evil.example';
const REJECTED_CAP = 5;
const REFUSED_CAP = 300;
const FLOOD = 1200;
const JSON_TYPE = { 'Content-Type': 'application/json' };

describe('requests carrying an Origin header', () => {
  it('are refused 403 and kept compact under the refused cap; the rejected cap and acknowledged notifications are untouched', async () => {
    const fx = await startBank({ retention: { rejected: REJECTED_CAP, refused: REFUSED_CAP } });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    /** One request on the keep-alive connections, its headers exactly as given. */
    const send = (method: string, target: string, headers: Record<string, string>, body = '') =>
      rawRequest(fx.url, method, target, headers, body, { agent });
    try {
      // What must survive: three real rejections (no Origin) and twenty acknowledged notifications.
      for (let i = 0; i < 3; i++) {
        expect((await send('POST', `${prefix}/pay-in`, JSON_TYPE, `{bad ${i}`)).status).toBe(400);
      }
      const acknowledged: string[] = [];
      for (let i = 0; i < 20; i++) {
        const id = randomUUID();
        const r = await send('POST', `${prefix}/pay-in`, JSON_TYPE, JSON.stringify({ transaction_id: id }));
        expect(r.status).toBe(200);
        acknowledged.push(id);
      }

      // The flood: what a page can send with no-cors (POSTs with text/plain bodies) and GETs;
      // a valid service token among them, which must not open the customer's data to a page.
      const token = await serviceJwt(fx.key);
      const sentIds: string[] = [];
      let next = 0;
      const statuses = new Map<number, number>();
      const errors = new Set<string>();
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < FLOOD) {
            const k = next++;
            const headers = { Origin: ORIGIN, 'Content-Type': 'text/plain;charset=UTF-8' };
            let r: { status: number; text: string };
            if (k % 4 === 0) {
              const id = randomUUID();
              sentIds.push(id);
              r = await send('POST', `${prefix}/pay-in`, headers, JSON.stringify({ transaction_id: id }));
            } else if (k % 4 === 1) {
              r = await send('POST', `${prefix}/transfer`, headers, `{garbage ${k}`);
            } else if (k % 4 === 2) {
              r = await send('GET', '/user_auth', { Origin: ORIGIN, 'X-Session-ID': token });
            } else {
              r = await send('GET', `/nope/${k}`, { Origin: ORIGIN });
            }
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
            errors.add((JSON.parse(r.text) as { error: string }).error);
            expect(r.text).not.toContain(CUSTOMER.key);
          }
        }),
      );
      expect(Object.fromEntries(statuses)).toEqual({ 403: FLOOD });
      expect([...errors]).toEqual(['origin_refused']);

      // The refused records land (callback events follow their answers; bounded wait).
      await fx.store.flush();
      for (let i = 0; i < 300; i++) {
        await fx.store.flush();
        const n = (await fx.store.query({ failed_check: 'origin', limit: 1 })).total;
        if (n >= REFUSED_CAP) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await new Promise((r) => setTimeout(r, 200));
      await fx.store.flush();

      // Kept compact, under the refused cap only.
      const refused = await fx.store.query({ failed_check: 'origin', limit: 1 });
      expect(refused.total).toBeGreaterThan(0);
      expect(refused.total).toBeLessThanOrEqual(REFUSED_CAP);
      const one = await fx.store.get(refused.events[0]!.id);
      expect(one).toMatchObject({ status: 403, failed_check: 'origin', request: null, response: null });
      expect(one.data).toMatchObject({ compact: true });
      const kinds = new Set<string>();
      for await (const e of fx.store.scan({})) if (e.failed_check === 'origin') kinds.add(e.kind);
      expect(kinds).toEqual(new Set(['callback', 'notification']));

      // The three real rejections are all still there: the flood did not go to their cap.
      const rejected: string[] = [];
      for await (const e of fx.store.scan({ kind: 'notification' })) {
        if (e.outcome === 'rejected' && e.failed_check === null) rejected.push(e.id);
      }
      expect(rejected).toHaveLength(3);
      // Every acknowledged notification is kept; none of the page's transaction_ids was taken.
      for (const id of acknowledged) expect(fx.store.hasTransaction(id)).toBe(true);
      expect(sentIds.filter((id) => fx.store.hasTransaction(id))).toEqual([]);

      // The service, which sends no Origin, is answered as before.
      expect((await send('GET', '/user_auth', { 'X-Session-ID': token })).status).toBe(200);
    } finally {
      agent.destroy();
    }
  }, 120_000);

  it('are refused on the bank listener’s console-level paths too (the reachability probe)', async () => {
    const dir = await tempDir();
    const core = await createConsoleCore({ dataDir: dir, host: 'cli' });
    try {
      const { url } = await core.listenBank({ host: '127.0.0.1', port: 0 });
      const probe = `/.well-known/dets-console/probe/${'a'.repeat(32)}`;
      // The console's own probe (no Origin) is answered as before: the marker echoed.
      expect(await rawRequest(url, 'GET', probe)).toMatchObject({ status: 200, text: 'a'.repeat(32) });
      const r = await rawRequest(url, 'GET', probe, { Origin: ORIGIN });
      expect(r.status).toBe(403);
      expect(JSON.parse(r.text)).toMatchObject({ error: 'origin_refused' });
    } finally {
      await core.close();
    }
  });
});
