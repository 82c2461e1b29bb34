/**
 * A damaged table other than the events (issue 24 item 6): a damaged page of
 * `sandbox_counterparties` costs the sandbox alone. `serve` starts, says the sandbox is
 * unavailable until a recovery, and its bank endpoints answer and store a callback and a
 * notification.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import Database from 'libsql';
import { afterAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { listEvents, notify, spawnServe } from '../../cli/helpers';
import { leavesOf, notification, overwritePage, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

describe('a damaged sandbox table', () => {
  it('serve starts without the sandbox, saying why, and its bank endpoints still answer and store', async () => {
    const dir = tempDir();
    const store = await openEventStore({ dataDir: dir, events: new EventHub(), log: () => undefined });
    await store.append(notification({ transaction_id: 'before' }), { durable: true });
    await store.close();
    const file = path.join(dir, 'console.db');
    const db = new Database(file);
    const put = db.prepare('INSERT INTO sandbox_counterparties (guid, created_at, record) VALUES (?, ?, ?)');
    for (let i = 0; i < 60; i++)
      put.run(`guid-${i}`, new Date().toISOString(), JSON.stringify({ pad: 'p'.repeat(300) }));
    db.close();
    const leaves = leavesOf(file, 'sandbox_counterparties');
    expect(leaves.length).toBeGreaterThan(2);
    overwritePage(file, leaves[1]!);

    const tx = randomUUID();
    const ports = 'ui bank sandbox'.split(' ').flatMap((l) => [`--${l}-port`, '0']);
    const serve = spawnServe(['--json', ...ports, '--data-dir', dir]);
    try {
      const ready = await serve.ready;
      expect(ready.bank).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(ready.sandbox).toBeUndefined();
      expect(serve.stderr()).toMatch(
        /the sandbox is not started: The sandbox is unavailable until the profile is recovered: .*store recover/,
      );

      const n = await notify(ready.bank, 'pay-in', JSON.stringify({ transaction_id: tx }));
      expect(n.status).toBe(200);
      // A callback without its X-Session-ID: answered (401) and recorded.
      const cb = await fetch(`${ready.bank}/user_auth`);
      expect(cb.status).toBe(401);
      await cb.arrayBuffer();
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
    const events = await listEvents(dir);
    expect(events.some((e) => e.kind === 'notification' && e.transaction_id === tx)).toBe(true);
    expect(events.some((e) => e.kind === 'callback' && e.path === '/user_auth' && e.status === 401)).toBe(
      true,
    );
  });
});
