import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { bundleChild, runUntilKilled } from '../../support/kill-child';
import { removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const here = path.dirname(fileURLToPath(import.meta.url));
let child = '';

beforeAll(async () => {
  child = await bundleChild(
    path.join(here, 'fixtures', 'append-child.ts'),
    path.join(tempDir(), 'append-child.mjs'),
  );
});

/** Runs the child until it acknowledged `acks` appends, then SIGKILLs it; returns what it acked. */
async function runAndKill(dataDir: string, acks: number): Promise<Map<string, string>> {
  const acked = new Map<string, string>();
  await runUntilKilled(child, [dataDir], (line) => {
    const [id, tx] = line.split(' ');
    if (id && tx) acked.set(id, tx);
    return acked.size >= acks;
  });
  return acked;
}

describe('event store: kill -9', () => {
  it('loses nothing acknowledged, twice in a row, and reopens after each crash', async () => {
    const dataDir = tempDir();
    const all = new Map<string, string>();
    for (const round of [1, 2]) {
      const acked = await runAndKill(dataDir, 1500 * round);
      expect(acked.size).toBeGreaterThanOrEqual(1500 * round);
      for (const [id, tx] of acked) all.set(id, tx);
      const store = await openEventStore({ dataDir, events: new EventHub() });
      try {
        for (const [id, tx] of all) {
          expect(store.hasTransaction(tx)).toBe(true);
          expect((await store.get(id)).transaction_id).toBe(tx);
        }
        const { total } = await store.query({ limit: 1 });
        expect(total).toBeGreaterThanOrEqual(all.size);
      } finally {
        await store.close();
      }
    }
    expect(fs.existsSync(path.join(dataDir, 'console.db'))).toBe(true);
  });
});
