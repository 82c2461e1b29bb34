/**
 * Two hubs on one PostgreSQL behind a load balancer (issue 30 item 4): a small TCP proxy in this
 * test alternates connections between the two hubs' bank ports, as a load balancer in front of
 * one registered URL would. Notifications go through both; one hub is killed with `kill -9` in
 * the middle of the load; what was not answered is sent again (as the service does, spec 4.3);
 * afterwards every acknowledged notification is in the database, each transaction_id accepted
 * once, and the survivor's live page (its event stream) showed the events the other hub stored.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { TRANSPORT } from '../../electron/contract';
import { postgresForTests } from '../support/postgres-tests';
import { cliTestFile } from './support/spawn-cli';
import { addMember, hubArgs } from './support/team';

const cli = cliTestFile('dets-two-hubs-');
const cluster = postgresForTests();

/** A TCP proxy on 127.0.0.1 handing each new connection to the next live backend in turn. */
function roundRobin(
  ports: number[],
): Promise<{ port: number; served: number[]; close: () => Promise<void> }> {
  let next = 0;
  const served = ports.map(() => 0);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const tryBackend = (left: number) => {
      const k = next++ % ports.length;
      const upstream = net.connect(ports[k]!, '127.0.0.1');
      upstream.once('connect', () => {
        served[k]! += 1;
        client.pipe(upstream).pipe(client);
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
      // A dead backend (connection refused): the next one, as a health-checking balancer would.
      upstream.once('error', () => (left > 1 ? tryBackend(left - 1) : client.destroy()));
    };
    tryBackend(ports.length);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        served,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      }),
    ),
  );
}

/** One notification on a fresh connection; the status, or null when no answer came. */
function notify(port: number, tx: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/svc/notify/pay-in',
        agent: false,
        timeout: 5000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? null));
        res.on('error', () => resolve(null));
      },
    );
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
    req.end(JSON.stringify({ transaction_id: tx }));
  });
}

/** The transaction_ids a hub's live event stream shows (events.appended), as they arrive. */
function watchStream(ui: string, token: string, seen: Set<string>): http.ClientRequest {
  const req = http.get(
    new URL(TRANSPORT.eventsPath, ui),
    { headers: { [TRANSPORT.tokenHeader]: token } },
    (res) => {
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (d: string) => {
        buf += d;
        const parts = buf.split('\n\n');
        buf = parts.pop()!;
        for (const p of parts) {
          const data = /^data: (.*)$/m.exec(p)?.[1];
          if (!p.includes('event: events.appended') || !data) continue;
          const tx = (JSON.parse(data) as { transaction_id?: string | null }).transaction_id;
          if (tx) seen.add(tx.toLowerCase());
        }
      });
    },
  );
  req.on('error', () => undefined);
  return req;
}

describe('two hubs on one PostgreSQL', () => {
  it('lose no acknowledged notification when one is killed with -9 mid-load, and show each other’s events live', async () => {
    const url = await cluster().database('hubs');
    const token = await addMember(['--store', url, '--data-dir', cli.dataDir('cli')], 'ops', 'viewer');
    const hub = (name: string) => cli.spawn(hubArgs(['--store', url, '--data-dir', cli.dataDir(name)]));
    const a = hub('a');
    const b = hub('b');
    const [ra, rb] = [await a.ready, await b.ready];
    const portOf = (u: unknown) => Number(new URL(String(u)).port);
    const lb = await roundRobin([portOf(ra.bank), portOf(rb.bank)]);
    const seenOnB = new Set<string>();
    const stream = watchStream(String(rb.ui), token, seenOnB);
    await new Promise((r) => setTimeout(r, 300));

    const acked = new Set<string>();
    const txs = Array.from({ length: 240 }, () => randomUUID());
    let sent = 0;
    let killed = false;
    const deadline = Date.now() + 90_000;
    // Eight senders; each retries what got no 200 (as the service does) until answered.
    const sender = async () => {
      for (;;) {
        const i = sent++;
        if (i >= txs.length) return;
        if (i === 100 && !killed) {
          killed = true;
          process.kill(a.child.pid!, 'SIGKILL');
        }
        const tx = txs[i]!;
        while (Date.now() < deadline) {
          if ((await notify(lb.port, tx)) === 200) {
            acked.add(tx);
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));
    expect(killed).toBe(true);
    // Both hubs took notifications (hub A only until it was killed).
    expect(lb.served[0]).toBeGreaterThan(10);
    expect(lb.served[1]).toBeGreaterThan(10);
    expect(acked.size).toBe(txs.length);

    // Every acknowledged notification is stored, each accepted exactly once.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const rows = await db.query<{ t: string; n: string }>(
      "SELECT tx_lower AS t, count(*) FILTER (WHERE outcome = 'accepted') AS n FROM events WHERE kind = 'notification' GROUP BY tx_lower",
    );
    await db.end();
    const accepted = new Map(rows.rows.map((r) => [r.t, Number(r.n)]));
    for (const tx of acked) expect(accepted.get(tx), tx).toBe(1);

    // The survivor's live stream showed what hub A stored before it died, not only its own.
    const until = Date.now() + 5000;
    while (Date.now() < until && [...acked].some((t) => !seenOnB.has(t)))
      await new Promise((r) => setTimeout(r, 100));
    expect([...acked].filter((t) => !seenOnB.has(t))).toEqual([]);

    stream.destroy();
    await lb.close();
    expect(await b.stop()).toEqual({ code: 0, signal: null });
  }, 150_000);
});
