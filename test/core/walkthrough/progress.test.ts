/**
 * The walkthrough's progress in the profile database (issue 12): kept per environment across
 * stores, migrated once from the old files, and a damaged record reported, never reset silently.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../electron/core/store/db';
import {
  createProgressStore,
  type Own,
  type ProgressStore,
  type ProgressStoreOptions,
} from '../../../electron/core/walkthrough/progress';

const ENV = '6f1c2d3e-4a5b-4c6d-8e7f-90a1b2c3d4e5';
const OTHER = '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d';

const opened: ProgressStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true, maxRetries: 5 });
});

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dets-progress-'));
  dirs.push(dir);
  return dir;
}

function store(dataDir: string, options?: ProgressStoreOptions): ProgressStore {
  const s = createProgressStore(dataDir, options);
  opened.push(s);
  return s;
}

function storedRecord(dataDir: string, environmentId: string): Record<string, unknown> {
  const db = openDatabase(dataDir, { readOnly: true });
  try {
    const row = db
      .prepare('SELECT record FROM walkthrough_progress WHERE environment_id = ?')
      .get(environmentId);
    return JSON.parse(String(row!.record)) as Record<string, unknown>;
  } finally {
    db.close();
  }
}

function damagedRows(dataDir: string): string[] {
  const db = openDatabase(dataDir, { readOnly: true });
  try {
    return db
      .prepare('SELECT record FROM walkthrough_progress_damaged ORDER BY seq')
      .all()
      .map((r) => String(r.record));
  } finally {
    db.close();
  }
}

describe('walkthrough progress', () => {
  it('is kept per environment and read back by a later store', async () => {
    const dataDir = await tempDir();
    const first = store(dataDir);
    expect((await first.read(ENV)).obj).toBeNull();
    await first.update(ENV, (p) => {
      p.obj = 'DE02120300000000202051';
      p.sub = 'walkthrough@bank.example';
    });
    await first.close();
    const second = store(dataDir);
    expect(await second.read(ENV)).toMatchObject({
      obj: 'DE02120300000000202051',
      sub: 'walkthrough@bank.example',
    });
    expect((await second.read(OTHER)).obj).toBeNull();
  });

  it('migrates the old files once, sets them aside, and reports a damaged one instead of resetting it', async () => {
    const dataDir = await tempDir();
    const dir = path.join(dataDir, 'walkthrough');
    await fs.mkdir(dir, { mode: 0o700 });
    const good = { version: 1, environment_id: ENV, obj: 'obj-1', sub: 'sub-1', attempts: {} };
    await fs.writeFile(path.join(dir, `${ENV}.json`), JSON.stringify(good), { mode: 0o600 });
    const broken = '{"version": 1, "environment_id": "' + OTHER + '", "obj": ';
    await fs.writeFile(path.join(dir, `${OTHER}.json`), broken, { mode: 0o600 });

    const s = store(dataDir);
    expect(await s.read(ENV)).toMatchObject({ obj: 'obj-1', sub: 'sub-1' });
    const names = (await fs.readdir(dir)).sort();
    expect(names).toEqual([
      expect.stringMatching(new RegExp(`^${OTHER}\\.json\\.migrated-\\d+$`)),
      expect.stringMatching(new RegExp(`^${ENV}\\.json\\.migrated-\\d+$`)),
    ]);

    // Reported, naming the environment and the database, and left as it was.
    const error = await s.read(OTHER).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toMatchObject({ code: 'STATE_DAMAGED' });
    expect((error as Error).message).toContain(OTHER);
    expect((error as Error).message).toContain(path.join(dataDir, 'console.db'));
    await expect(s.update(OTHER, (p) => void (p.obj = 'x'))).rejects.toMatchObject({ code: 'STATE_DAMAGED' });
    await expect(s.read(OTHER)).rejects.toMatchObject({ code: 'STATE_DAMAGED' });

    // The reset (an explicit start over) replaces it and keeps the damaged text aside.
    const reset = await s.update(OTHER, (p) => void (p.reset_at = '2026-01-01T00:00:00.000Z'), {
      replaceDamaged: true,
    });
    expect(reset.reset_at).toBe('2026-01-01T00:00:00.000Z');
    expect((await s.read(OTHER)).reset_at).toBe('2026-01-01T00:00:00.000Z');
    expect(damagedRows(dataDir)).toEqual([broken]);
    await s.close();

    // Once: a file put back after the migration is not copied over what the database holds.
    await fs.writeFile(path.join(dir, `${ENV}.json`), JSON.stringify({ ...good, obj: 'stale' }));
    expect((await store(dataDir).read(ENV)).obj).toBe('obj-1');
  });

  it('reports a row damaged in the database', async () => {
    const dataDir = await tempDir();
    const s = store(dataDir);
    await s.update(ENV, (p) => void (p.obj = 'obj-1'));
    const db = openDatabase(dataDir);
    db.prepare('UPDATE walkthrough_progress SET record = \'{"version": 2}\' WHERE environment_id = ?').run(
      ENV,
    );
    db.close();
    await expect(s.read(ENV)).rejects.toMatchObject({
      code: 'STATE_DAMAGED',
      message: expect.stringContaining(`environment ${ENV}`),
    });
  });

  it('rebuilds `own` of a record from before it once, and tries again while a source cannot be read', async () => {
    const dataDir = await tempDir();
    const dir = path.join(dataDir, 'walkthrough');
    await fs.mkdir(dir, { mode: 0o700 });
    const old = {
      version: 1,
      environment_id: ENV,
      obj: 'obj-1',
      sub: 'sub-1',
      bank_url: null,
      probe: null,
      attempts: {},
    };
    await fs.writeFile(path.join(dir, `${ENV}.json`), JSON.stringify(old), { mode: 0o600 });
    const rebuilt: Own = {
      sign_ins: [{ at: '2026-01-01T00:00:00.000Z', trace_id: 't1', callback_id: 'e000000000001' }],
      notifications: [],
      exchange_ids: ['x1'],
    };
    let calls = 0;
    let sourcesDown = true;
    const s = store(dataDir, {
      rebuildOwn: async () => {
        calls += 1;
        if (sourcesDown) throw new Error('the sandbox cannot be read');
        return rebuilt;
      },
    });

    // A source down: the lists stay empty and the record stays old, through an update too.
    expect((await s.read(ENV)).own.sign_ins).toEqual([]);
    await s.update(ENV, (p) => void (p.obj = 'obj-2'));
    expect(storedRecord(dataDir, ENV)).not.toHaveProperty('own');
    expect(storedRecord(dataDir, ENV).obj).toBe('obj-2');
    expect(calls).toBe(2);

    // Back: rebuilt at the next read, written back, and never asked again.
    sourcesDown = false;
    expect((await s.read(ENV)).own).toEqual(rebuilt);
    expect(storedRecord(dataDir, ENV).own).toEqual(rebuilt);
    await s.read(ENV);
    await s.update(ENV, (p) => void (p.sub = 'sub-2'));
    expect(calls).toBe(3);
    expect((await s.read(ENV)).own).toEqual(rebuilt);

    // A record written with `own` (even empty) is today's: nothing to rebuild.
    await s.update(OTHER, (p) => void (p.obj = 'x'));
    expect((await s.read(OTHER)).own.sign_ins).toEqual([]);
    expect(calls).toBe(3);
  });
});
