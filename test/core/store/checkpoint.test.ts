import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { WriterClient } from '../../../electron/core/store/writer';
import {
  CHECKPOINT,
  CHECKPOINT_THREAD_NAME,
  WRITER_THREAD_NAME,
} from '../../../electron/core/store/writer-protocol';
import { DEFAULT_RETENTION } from '../../../electron/core/store/sqlite-store';
import { notification, removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

/** This process's threads (Linux /proc): name and nice value. */
function threads(): { name: string; nice: number }[] {
  return fs
    .readdirSync('/proc/self/task')
    .map((t) => {
      try {
        const stat = fs.readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
        // proc(5): after "pid (comm) ", nice is the 19th field.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), nice: Number(fields[16]) };
      } catch {
        return { name: '', nice: 0 };
      }
    })
    .filter((t) => t.name !== '');
}
const threadNames = () => threads().map((t) => t.name);

describe.runIf(process.platform === 'linux')(
  'event store: checkpoints under load (writer-protocol.ts CHECKPOINT)',
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
        // that bound. Where under it depends on how fast the checkpointer (nice 10) copies beside
        // the commits: 25–26 MB on a quiet machine, 28–31 MB with both cores busy, 34 MB once in
        // a full CI run (schema 8's extra index adds a page to each commit). Without the writer's
        // catch-up the WAL never started over and grew to 88 MB.
        expect(largest).toBeGreaterThan(CHECKPOINT.maxBytes);
        expect(largest).toBeLessThan(CHECKPOINT.hardBytes);
        expect((await store.query({ kind: 'notification' })).total).toBe(1500);
        // The writer and its checkpointer each on a thread of their own, named (top -H shows them).
        expect(threadNames()).toEqual(expect.arrayContaining([WRITER_THREAD_NAME, CHECKPOINT_THREAD_NAME]));
        // The checkpointer yields the CPU to the writer and the event loop; the writer does not.
        expect(threads().find((t) => t.name === CHECKPOINT_THREAD_NAME)?.nice).toBe(10);
        expect(threads().find((t) => t.name === WRITER_THREAD_NAME)?.nice).toBe(0);
      } finally {
        await store.close();
      }
      // Closed: neither thread is left running.
      for (let i = 0; i < 100 && threadNames().includes(CHECKPOINT_THREAD_NAME); i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(threadNames()).not.toContain(CHECKPOINT_THREAD_NAME);
    });

    it('closes even when its checkpointer thread ended earlier (a fault), without waiting for it', async () => {
      const dir = tempDir();
      const store = await openEventStore({ dataDir: dir, events: new EventHub() });
      await store.close(); // the database exists, migrated
      const client = new WriterClient(path.join(dir, 'console.db'), DEFAULT_RETENTION);
      await (
        client as unknown as { checkpointer: { terminate(): Promise<number> } }
      ).checkpointer.terminate();
      // Waiting for an 'exit' that had already happened would hang here (the test's timeout).
      await client.close();
      expect(client.alive).toBe(false);
    });
  },
);
