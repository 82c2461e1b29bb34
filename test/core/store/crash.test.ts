import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

const here = path.dirname(fileURLToPath(import.meta.url));
let child = '';

beforeAll(async () => {
  // tsx is not installed: bundle the fixture (and the store it imports from source) with esbuild.
  child = path.join(tempDir(), 'append-child.mjs');
  await build({
    entryPoints: [path.join(here, 'fixtures', 'append-child.ts')],
    outfile: child,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    external: ['libsql'],
  });
});

/** Runs the child until it acknowledged `acks` appends, then SIGKILLs it; returns what it acked. */
function runAndKill(dataDir: string, acks: number): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    // The bundle lives in a temp dir: libsql (external, native) resolves through NODE_PATH.
    const env = { ...process.env, NODE_PATH: path.join(here, '..', '..', '..', 'node_modules') };
    const proc = spawn(process.execPath, [child, dataDir], { stdio: ['ignore', 'pipe', 'pipe'], env });
    const acked = new Map<string, string>();
    let buffer = '';
    let stderr = '';
    let killed = false;
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const [id, tx] = line.split(' ');
        if (id && tx) acked.set(id, tx);
      }
      if (!killed && acked.size >= acks) {
        killed = true;
        proc.kill('SIGKILL');
      }
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited ${code}: ${stderr}`));
      else resolve(acked);
    });
  });
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
