import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { CHECKPOINT, CHECKPOINT_THREAD_NAME, WRITER_THREAD_NAME } from '../../../electron/core/store/writer';
import { notification, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

/** The names of this process's threads (Linux /proc). */
function threadNames(): string[] {
  return fs
    .readdirSync('/proc/self/task')
    .map((t) => {
      try {
        return fs.readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim();
      } catch {
        return '';
      }
    })
    .filter(Boolean);
}

describe.runIf(process.platform === 'linux')(
  'event store: checkpoints under load (writer.ts CHECKPOINT)',
  () => {
    it('keeps the WAL bounded through back-to-back durable commits, checkpointing beside the writer', async () => {
      const dir = tempDir();
      const store = await openEventStore({ dataDir: dir, events: new EventHub() });
      try {
        const wal = path.join(dir, 'console.db-wal');
        // One commit each, never idle long enough for the idle checkpoint: the WAL would take
        // every commit's pages (several MB per hundred) without a checkpoint under load.
        let largest = 0;
        for (let i = 0; i < 1500; i++) {
          await store.append(notification({ transaction_id: `tx-${i}`, warning: 'x'.repeat(2000) }), {
            durable: true,
          });
          if (i % 100 === 99) largest = Math.max(largest, fs.statSync(wal).size);
        }
        // 1,500 commits wrote well past CHECKPOINT.maxBytes (16 MB) of pages, and past what the
        // writer's own fallback allows (hardBytes, 64 MB, by its estimate); the file stayed under
        // twice the checkpointer's threshold.
        expect(largest).toBeGreaterThan(0);
        expect(largest).toBeLessThan(2 * CHECKPOINT.maxBytes);
        expect((await store.query({ kind: 'notification' })).total).toBe(1500);
        // The writer and its checkpointer each on a thread of their own, named (top -H shows them).
        expect(threadNames()).toEqual(expect.arrayContaining([WRITER_THREAD_NAME, CHECKPOINT_THREAD_NAME]));
      } finally {
        await store.close();
      }
      // Closed: neither thread is left running.
      for (let i = 0; i < 100 && threadNames().includes(CHECKPOINT_THREAD_NAME); i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(threadNames()).not.toContain(CHECKPOINT_THREAD_NAME);
    });
  },
);
