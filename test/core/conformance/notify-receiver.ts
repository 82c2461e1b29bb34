/**
 * A bank's notification receiver on 127.0.0.1:0 for the `notify.*` conformance tests: a correct
 * one (repeats answered 200 and applied once, ids compared case-insensitively, malformed bodies
 * refused 400) and planted faults, each the classic mistake one case must catch. Its probe
 * (GET /probe/<transaction_id> → {"count": N}) says how many times it applied an id.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceiverFault =
  | 'none'
  /** 409 Conflict on a repeat: the service retries forever, then escalates. */
  | 'conflict-on-repeat'
  /** 500 when another copy of the same id is in flight (a unique-constraint race). */
  | 'concurrent-500'
  /** Repeat check compares ids as typed: the upper-case repeat hits the lower-case unique index → 500. */
  | 'case-sensitive'
  /** 200 for anything, garbage included. */
  | 'garbage-200'
  /** Answers after 1.5 s. */
  | 'slow'
  /** Answers 200 to repeats but applies each one again (only the probe shows it). */
  | 'applies-twice';

export interface Receiver {
  url: string;
  probe: string;
  /** POSTs received. */
  posts: number;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function startReceiver(fault: ReceiverFault = 'none'): Promise<Receiver> {
  const applied = new Map<string, number>();
  const inFlight = new Set<string>();
  const state = { posts: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const end = (status: number, body?: string) => {
        res.writeHead(status, body ? { 'Content-Type': 'application/json' } : {});
        res.end(body);
      };
      if (req.method === 'GET' && req.url?.startsWith('/probe/')) {
        const id = decodeURIComponent(req.url.slice('/probe/'.length)).toLowerCase();
        return end(200, JSON.stringify({ count: applied.get(id) ?? 0 }));
      }
      state.posts += 1;
      if (fault === 'garbage-200') return end(200);
      let id: string | null = null;
      try {
        const v = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { transaction_id?: unknown };
        if (typeof v?.transaction_id === 'string' && UUID.test(v.transaction_id)) id = v.transaction_id;
      } catch {
        // refused below
      }
      if (id === null)
        return end(400, JSON.stringify({ error: 'body must be {"transaction_id": "<uuid>"}' }));
      const key = fault === 'case-sensitive' ? id : id.toLowerCase();
      const known =
        fault === 'case-sensitive' ? applied.has(key) && key === key.toLowerCase() : applied.has(key);
      const finish = () => {
        inFlight.delete(key);
        if (fault === 'case-sensitive' && !known && applied.has(key.toLowerCase())) return end(500);
        if (known && fault === 'conflict-on-repeat') return end(409);
        if (!known || fault === 'applies-twice')
          applied.set(key.toLowerCase(), (applied.get(key.toLowerCase()) ?? 0) + 1);
        end(200);
      };
      if (fault === 'concurrent-500') {
        if (inFlight.has(key)) return end(500);
        inFlight.add(key);
        return setTimeout(finish, 50);
      }
      if (fault === 'slow') return setTimeout(finish, 1500);
      finish();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    probe: `${url}/probe`,
    get posts() {
      return state.posts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
