/**
 * Issues 5 and 12: a notification is committed before its 200. The built `serve` takes a burst of
 * concurrent pay-ins, is killed with SIGKILL right after the last 200 (no shutdown, no flush),
 * and `dets-console events` must still list every acknowledged transaction_id, once.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents, spawnServe, type ServeChild } from './helpers';

const TOTAL = 2_000;
const IN_FLIGHT = 32;

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'dets-durability-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true, maxRetries: 5 });
});

/** POSTs one pay-in; resolves to the status, or 0 when the connection failed. */
function postPayIn(agent: http.Agent, bank: URL, transactionId: string): Promise<number> {
  const body = JSON.stringify({ transaction_id: transactionId });
  return new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        host: bank.hostname,
        port: bank.port,
        path: '/api/svc/notify/pay-in',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/**
 * Starts `serve` (bank listener only) on `<tmp>/NAME` and runs `burst` with it, its bank URL and
 * a keep-alive agent of IN_FLIGHT sockets; afterwards the agent is destroyed and serve killed.
 * Resolves to the notifications `events` then lists for that profile.
 */
async function afterBurst(
  name: string,
  burst: (serve: ServeChild, bank: URL, agent: http.Agent) => Promise<void>,
): Promise<Array<Record<string, unknown>>> {
  const dir = path.join(tmp, name);
  let serve: ServeChild | undefined;
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  try {
    serve = spawnServe(['--ui-port', '0', '--bank-port', '0', '--no-sandbox', '--json', '--data-dir', dir]);
    await burst(serve, new URL(String((await serve.ready).bank)), agent);
  } finally {
    agent.destroy();
    serve?.kill();
  }
  return listEvents(dir, '--kind', 'notification');
}

/** The transaction_ids listed as accepted, each once. */
function acceptedOnce(listed: Array<Record<string, unknown>>): Set<string> {
  const accepted = listed.filter((e) => e.outcome === 'accepted').map((e) => String(e.transaction_id));
  const acceptedSet = new Set(accepted);
  expect(accepted.length, 'a transaction_id listed twice as accepted').toBe(acceptedSet.size);
  return acceptedSet;
}

describe('notifications survive kill -9 right after their 200', () => {
  it(`lists every acknowledged transaction_id of ${TOTAL} concurrent pay-ins, once`, async () => {
    const acknowledged: string[] = [];
    const statuses = new Map<number, number>();
    const listed = await afterBurst('profile', async (serve, bank, agent) => {
      const ids = Array.from({ length: TOTAL }, () => randomUUID());
      let next = 0;
      const worker = async () => {
        while (next < ids.length) {
          const id = ids[next++]!;
          const status = await postPayIn(agent, bank, id);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status === 200) acknowledged.push(id);
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      // Straight after the last 200: no SIGTERM, no flush, no chance to write anything more.
      expect((await serve.stop('SIGKILL')).signal).toBe('SIGKILL');
    });

    expect(Object.fromEntries(statuses)).toEqual({ 200: TOTAL });
    const acceptedSet = acceptedOnce(listed);
    const missing = acknowledged.filter((id) => !acceptedSet.has(id));
    expect(missing, `${missing.length} acknowledged notifications lost`).toEqual([]);
    for (const e of listed) expect(e).toMatchObject({ kind: 'notification', path: '/api/svc/notify/pay-in' });
  }, 180_000);

  it('keeps every acknowledged one when killed mid-burst, with requests still in flight', async () => {
    const killAt = Math.floor(TOTAL / 2);
    const acknowledged: string[] = [];
    const listed = await afterBurst('mid-burst', async (serve, bank, agent) => {
      let next = 0;
      let killed = false;
      const worker = async () => {
        while (next < TOTAL && !killed) {
          next += 1;
          const id = randomUUID();
          const status = await postPayIn(agent, bank, id);
          if (status !== 200 || killed) continue;
          acknowledged.push(id);
          if (acknowledged.length === killAt) {
            // Others are still in flight: some half-written, some written and not yet answered.
            killed = true;
            serve.child.kill('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      expect((await serve.exit).signal).toBe('SIGKILL');
    });
    expect(acknowledged.length).toBe(killAt);

    const acceptedSet = acceptedOnce(listed);
    expect(acknowledged.filter((id) => !acceptedSet.has(id))).toEqual([]);
  }, 180_000);

  it('keeps every acknowledged one over several kills at random moments on one profile, and knows repeats after each restart whatever the case', async () => {
    const dir = path.join(tmp, 'rounds');
    const acknowledged: string[] = [];
    for (let round = 0; round < 4; round++) {
      const killAt = 50 + Math.floor(Math.random() * 400);
      const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
      const serve = spawnServe([
        '--ui-port',
        '0',
        '--bank-port',
        '0',
        '--no-sandbox',
        '--json',
        '--data-dir',
        dir,
      ]);
      try {
        const bank = new URL(String((await serve.ready).bank));
        if (acknowledged.length > 0) {
          // A repeat across the restart, in another letter case: still 200, marked `repeat`.
          const earlier = acknowledged[Math.floor(Math.random() * acknowledged.length)]!;
          expect(await postPayIn(agent, bank, earlier.toUpperCase())).toBe(200);
        }
        let sent = 0;
        let mine = 0;
        let killed = false;
        const worker = async () => {
          while (!killed && sent < 2_000) {
            sent += 1;
            const id = randomUUID();
            const status = await postPayIn(agent, bank, id);
            if (status !== 200 || killed) continue;
            acknowledged.push(id);
            if (++mine === killAt) {
              killed = true;
              serve.child.kill('SIGKILL');
            }
          }
        };
        await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
        expect((await serve.exit).signal).toBe('SIGKILL');
      } finally {
        agent.destroy();
        serve.kill();
      }
    }
    const listed = await listEvents(dir, '--kind', 'notification');
    const acceptedSet = acceptedOnce(listed);
    expect(acknowledged.filter((id) => !acceptedSet.has(id))).toEqual([]);
    const repeats = listed.filter((e) => e.outcome === 'repeat');
    expect(repeats).toHaveLength(3);
    for (const r of repeats) expect(acceptedSet.has(String(r.transaction_id).toLowerCase())).toBe(true);
  }, 180_000);
});
