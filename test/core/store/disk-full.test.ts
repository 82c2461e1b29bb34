import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import type { StoreHealth } from '../../../electron/contract/schemas/events';
import { fillDisk, mountTmpfs, unmountTmpfs } from '../../support/full-disk';
import { cleanup, post, startBank } from '../bank/helpers';

/**
 * A full disk, for real: the profile lives on a 2 MiB tmpfs this test mounts (root is available
 * in CI) and unmounts in afterAll, whatever happened.
 */
let mountPoint = '';
const prefix = '/api/svc/notify';

beforeAll(() => {
  mountPoint = mountTmpfs('2m', 'dets-full-');
});
afterAll(async () => {
  await cleanup();
  // libsql releases a closed connection's files when the garbage collector frees it: unmounted
  // lazily (full-disk.ts).
  if (mountPoint) unmountTmpfs(mountPoint);
});

async function notify(url: string): Promise<{ id: string; status: number }> {
  const id = randomUUID();
  const r = await post(`${url}${prefix}/pay-in`, JSON.stringify({ transaction_id: id }));
  return { id, status: r.status };
}

describe('event store: a full disk, without a restart', () => {
  it('fails only what it cannot store (500), loses nothing acknowledged, logs and shows it, and recovers by itself', async () => {
    const dir = path.join(mountPoint, 'profile');
    const fx = await startBank({ dir });
    const health: StoreHealth['state'][] = [];
    fx.events.on('store.changed', (h) => health.push(h.state));
    const acked: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await notify(fx.url);
      expect(r.status).toBe(200);
      acked.push(r.id);
    }

    const filler = path.join(mountPoint, 'filler');
    fillDisk(filler);
    const statuses: number[] = [];
    // Bounded: until some were refused (the WAL may hold a few pages of room), at most 400.
    for (let i = 0; i < 400 && !statuses.includes(500); i += 8) {
      const batch = await Promise.all(Array.from({ length: 8 }, () => notify(fx.url)));
      for (const r of batch) {
        statuses.push(r.status);
        if (r.status === 200) acked.push(r.id);
      }
    }
    expect(statuses).toContain(500);
    expect(statuses.every((s) => s === 200 || s === 500)).toBe(true);
    expect(fx.store.health()).toMatchObject({ state: 'failing', file: path.join(dir, 'console.db') });
    expect(health).toContain('failing');

    fs.rmSync(filler);
    // Space is back, but nothing says so until a write succeeds: the next notification does.
    expect(fx.store.health().state).toBe('failing');
    for (let i = 0; i < 10; i++) {
      const r = await notify(fx.url);
      expect(r.status).toBe(200);
      acked.push(r.id);
    }
    expect(fx.store.health().state).toBe('ok');
    expect(health.at(-1)).toBe('ok');

    // Every acknowledged one is there, read by a fresh opener of the same file.
    await fx.store.flush();
    const reader = await openEventStore({ dataDir: dir, events: new EventHub(), readOnly: true });
    try {
      for (const id of acked) expect(reader.hasTransaction(id)).toBe(true);
    } finally {
      await reader.close();
    }
  });

  it('health stays failing while the disk stays full, until a write actually succeeds (issue 24 item 8)', async () => {
    const dir = path.join(mountPoint, 'profile-stays-full');
    const fx = await startBank({ dir });
    const health: StoreHealth['state'][] = [];
    fx.events.on('store.changed', (h) => health.push(h.state));
    expect((await notify(fx.url)).status).toBe(200);
    const filler = path.join(mountPoint, 'filler-2');
    fillDisk(filler);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 400 && !statuses.includes(500); i += 8) {
        const batch = await Promise.all(Array.from({ length: 8 }, () => notify(fx.url)));
        statuses.push(...batch.map((r) => r.status));
      }
      expect(statuses).toContain(500);
      expect(fx.store.health().state).toBe('failing');
      // Room for a page or two, not for a notification's commit (its row, its index entries, its
      // text: about ten pages): a one-page probe commit fits, a real write does not.
      fs.truncateSync(filler, Math.max(0, fs.statSync(filler).size - 12 * 1024));
      const from = health.lastIndexOf('failing');
      // Three retry periods (RETRY_MS = 1 s) with the disk still full and no request: the store's
      // own tries must not call it healthy.
      await new Promise((r) => setTimeout(r, 3500));
      expect(fx.store.health().state).toBe('failing');
      expect(health.slice(from)).not.toContain('ok');
      // Still full: a real write is refused and the state says so.
      expect((await notify(fx.url)).status).toBe(500);
      expect(fx.store.health().state).toBe('failing');
    } finally {
      fs.rmSync(filler, { force: true });
    }
    expect((await notify(fx.url)).status).toBe(200);
    expect(fx.store.health().state).toBe('ok');
  });
});
