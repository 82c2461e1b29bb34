/**
 * Hostile input on a team hub (issue 30 review; DESIGN.md "Team hub", "Storage"): a flood of
 * refused mutations, 403 from a viewer's token and 401 without one, must not make the audit
 * trail grow past what the hub keeps (a viewer's token is enough to send them, so each refusal
 * goes under the refused requests' cap, never into the audit class, which is kept whole), and
 * the hub must still take a notification for the bank correctly afterwards (200 after its
 * commit, stored as accepted). The real core, event store, member store and headless server on
 * 127.0.0.1; the flood bounded in count (2 × FLOOD) and time (60 s).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TRANSPORT } from '../../electron/contract';
import type { ServeOptions } from '../../electron/cli/commands/serve-options';
import { teamGuard } from '../../electron/cli/commands/serve-team';
import { createConsoleCore, type ConsoleCore } from '../../electron/core/console-core';
import { openEventStore } from '../../electron/core/store';
import { RelayHub } from '../../electron/core/team';
import { openDatabase } from '../../electron/core/store/db';
import { startHeadlessServer, type HeadlessServer } from '../../electron/headless';

/** Refused requests of each kind (403, 401) in the flood. */
const FLOOD = 600;
/** The refused requests' cap of this hub's store, well under the flood. */
const REFUSED_CAP = 150;
const CONCURRENCY = 16;

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function hub(): Promise<{
  core: ConsoleCore;
  server: HeadlessServer;
  dataDir: string;
  members: Awaited<ReturnType<typeof teamGuard>>['members'];
}> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'dets-hub-flood-'));
  closers.push(() => rm(dataDir, { recursive: true, force: true }));
  const core = await createConsoleCore({
    dataDir,
    host: 'cli',
    eventStore: (options) => openEventStore({ ...options, retention: { refused: REFUSED_CAP } }),
  });
  closers.push(() => core.close());
  const { guard, members } = await teamGuard(
    core,
    { dataDir, host: '127.0.0.1' } as ServeOptions,
    () => undefined,
    new RelayHub(),
  );
  const server = await startHeadlessServer({ core, host: '127.0.0.1', port: 0, team: guard });
  closers.push(() => server.close());
  return { core, server, dataDir, members };
}

function call(base: string, method: string, token: string | null, input: unknown): Promise<Response> {
  return fetch(new URL(`${TRANSPORT.callPathPrefix}${method}`, base), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { [TRANSPORT.tokenHeader]: token }),
    },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(20_000),
  });
}

/** Events per retention class, read from the profile database. */
function classes(dataDir: string): Record<string, number> {
  const db = openDatabase(dataDir);
  try {
    const out: Record<string, number> = {};
    for (const r of db.prepare('SELECT class, count(*) AS n FROM events GROUP BY class').all())
      out[String(r.class)] = Number(r.n);
    return out;
  } finally {
    db.close();
  }
}

describe('a team hub under a flood of refused mutations', () => {
  it('keeps the audit class to the real changes, the refusals under their cap, and still takes a notification', async () => {
    const { core, server, dataDir, members } = await hub();
    const viewer = (await members.add('viewer@bank.example', 'viewer')).token;
    const admin = (await members.add('admin@bank.example', 'admin')).token;

    // One change by an admin, audited (whatever its outcome): it must survive whatever the flood does.
    const made = await call(server.url, 'keys.generate', admin, { alg: 'RS256', bits: 2048, kid: 'flood-1' });
    expect(made.status).toBe(200);

    const deadline = Date.now() + 60_000;
    let sent = 0;
    const statuses: Record<number, number> = {};
    const worker = async () => {
      while (sent < 2 * FLOOD && Date.now() < deadline) {
        const i = sent++;
        const r =
          i % 2 === 0
            ? await call(server.url, 'keys.generate', viewer, { alg: 'RS256', bits: 2048, kid: `v-${i}` })
            : await call(server.url, 'keys.delete', null, { kid: 'flood-1' });
        await r.arrayBuffer();
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(statuses).toEqual({ 403: FLOOD, 401: FLOOD });

    // The hub still serves: the bank takes a notification (200 after its commit), a read works.
    const bank = await core.listenBank({ host: '127.0.0.1', port: 0 });
    closers.push(() => bank.close());
    const tx = randomUUID();
    const n = await fetch(`${bank.url}/api/svc/notify/pay-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ transaction_id: tx }),
      signal: AbortSignal.timeout(20_000),
    });
    expect(n.status).toBe(200);
    const session = await call(server.url, 'team.session', viewer, {});
    expect(((await session.json()) as { value: unknown }).value).toMatchObject({
      member: 'viewer@bank.example',
    });

    const store = await core.store();
    await store.flush();
    const stored = await store.query({ kind: 'notification', text: tx });
    expect(stored.events.map((e) => e.outcome)).toEqual(['accepted']);
    const counts = classes(dataDir);
    // The audit class holds the real change only; the refusals are under the refused cap.
    expect(counts.audit).toBe(1);
    expect(counts.refused).toBeGreaterThan(0);
    expect(counts.refused).toBeLessThanOrEqual(REFUSED_CAP);
    // The newest refusals are still visible as audit events, naming the viewer.
    const audit = await store.query({ kind: 'audit', limit: 5 });
    expect(audit.events[0]).toMatchObject({ kind: 'audit', status: 403, sub: 'viewer@bank.example' });
  }, 120_000);
});
