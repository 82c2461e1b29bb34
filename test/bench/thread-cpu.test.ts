import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventHub } from '../../electron/core/event-hub';
import { blankEvent, openEventStore } from '../../electron/core/store';
import { formatThreadSplit, threadCpu } from './lib/thread-cpu';

const linux = process.platform === 'linux';

describe.runIf(linux)('bench: CPU by thread (/proc)', () => {
  it('names the store writer thread dets-writer and counts its CPU apart from the main thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dets-threads-'));
    const store = await openEventStore({ dataDir: dir, events: new EventHub() });
    try {
      const before = threadCpu(process.pid)!;
      // Enough durable commits that the writer thread burns a few scheduler ticks (10 ms each).
      const deadline = Date.now() + 5_000;
      let after = threadCpu(process.pid)!;
      for (let i = 0; i < 200 && (after.writer === before.writer || Date.now() < deadline - 4_500); i++) {
        await Promise.all(
          Array.from({ length: 50 }, (_, j) =>
            store.append(
              {
                ...blankEvent('notification', new Date().toISOString()),
                outcome: 'accepted',
                transaction_id: `t-${i}-${j}`,
              },
              { durable: true },
            ),
          ),
        );
        after = threadCpu(process.pid)!;
        if (Date.now() > deadline) break;
      }
      expect(after.writer).toBeGreaterThan(before.writer);
      expect(after.main).toBeGreaterThan(before.main);
      expect(formatThreadSplit(before, after, 100)).toMatch(
        /^main thread \d+\.\d, writer threads \d+\.\d, other threads \d+\.\d µs\/req$/,
      );
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('answers null for a process that is not there', () => {
    expect(threadCpu(2 ** 22 + 12345)).toBeNull();
  });
});
