/**
 * The sandbox's state in the profile database (issue 12 item 6): written per change, bounded
 * (traces capped, counterparties deletable), migrated once from an old state.json, and
 * consistent after kill -9 with no temp file anywhere.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { createSandbox } from '../../../electron/core/sandbox';
import { openDatabase } from '../../../electron/core/store/db';
import { bundleChild, runUntilKilled } from '../../support/kill-child';
import {
  bankJwt,
  call,
  cleanup,
  makeBankKey,
  readStateRows,
  startSandbox,
  startWithCounterparty,
  tempDir,
  testSealer,
} from './helpers';

afterEach(cleanup);

const here = path.dirname(fileURLToPath(import.meta.url));

describe('an old state.json', () => {
  it('is migrated once with every field, set aside after the commit, and stale temp files go', async () => {
    const sealer = testSealer();
    const first = await startWithCounterparty({ sealer });
    await first.sandbox.updateSettings({ token_ttl_seconds: 77 });
    await first.sandbox.signIn({ counterparty_guid: first.guid, token: 'not-a-jwt' });
    const before = await first.sandbox.status();
    const tracesBefore = await first.sandbox.traces();
    await first.close();
    const rows = readStateRows(first.dataDir);

    // The same state as the old writer kept it, in a profile of its own, with the temp files a
    // kill -9 used to leave.
    const dataDir = await tempDir();
    const dir = path.join(dataDir, 'sandbox');
    await fs.mkdir(dir, { mode: 0o700 });
    const legacy = {
      format: 'dets-console.sandbox',
      version: 1,
      settings: rows.settings,
      keys: rows.keys,
      counterparties: rows.counterparties,
      traces: [...tracesBefore].reverse(),
    };
    await fs.writeFile(path.join(dir, 'state.json'), JSON.stringify(legacy), { mode: 0o600 });
    await fs.writeFile(path.join(dir, '.state.json.4242.a1b2c3d4e5f6.tmp'), '{"half');
    await fs.writeFile(path.join(dir, 'state.json.17.ffeeddccbbaa.tmp'), '');

    const second = await startSandbox({ dataDir, sealer });
    const after = await second.sandbox.status();
    expect(after.counterparties).toEqual(before.counterparties);
    expect(after.settings).toEqual(before.settings);
    expect(after.keys).toEqual(before.keys);
    expect(await second.sandbox.traces()).toEqual(tracesBefore);
    // The sealed key reopened: the same kid signs.
    expect(second.emitted.some((e) => e.event === 'app.noticed')).toBe(false);
    const names = await fs.readdir(dir);
    expect(names).toEqual([expect.stringMatching(/^state\.json\.migrated-\d+$/)]);
    expect(JSON.parse(await fs.readFile(path.join(dir, names[0]!), 'utf8'))).toEqual(legacy);
    await second.close();

    // Once: a third open imports nothing again (the traces are not doubled).
    const third = await startSandbox({ dataDir, sealer });
    expect(await third.sandbox.traces()).toHaveLength(1);
    expect(readStateRows(dataDir).meta.sandbox_state_migrated_at).toEqual(expect.any(String));
  });
});

describe('counterparties', () => {
  it('are deletable over HTTP and through the Sandbox method, and stay deleted after a restart', async () => {
    const sb = await startWithCounterparty();
    const other = await sb.sandbox.onboard({ jwk: (await makeBankKey()).jwk });
    const gone = await call(sb.url, 'DELETE', `/sandbox/v1/counterparties/${sb.guid}`);
    expect(gone.status).toBe(200);
    expect(gone.json).toEqual({ deleted: sb.guid });
    expect((await call(sb.url, 'GET', `/sandbox/v1/counterparties/${sb.guid}`)).status).toBe(404);
    expect((await call(sb.url, 'DELETE', `/sandbox/v1/counterparties/${sb.guid}`)).status).toBe(404);
    expect((await call(sb.url, 'DELETE', '/sandbox/v1/counterparties/not-a-guid')).status).toBe(400);
    // The deleted counterparty's key no longer authenticates.
    const auth = `/api/v1/counterparty/${sb.guid}/jwk/authenticate`;
    expect((await call(sb.url, 'POST', auth, { token: await bankJwt(sb.key) })).status).toBe(404);
    expect(sb.emitted.filter((e) => e.event === 'sandbox.changed').length).toBeGreaterThanOrEqual(3);
    await sb.close();

    const again = await startSandbox({ dataDir: sb.dataDir });
    expect((await again.sandbox.status()).counterparties.map((c) => c.counterparty_guid)).toEqual([
      other.counterparty_guid,
    ]);
    await expect(
      again.sandbox.deleteCounterparty({ counterparty_guid: other.counterparty_guid }),
    ).resolves.toEqual({ deleted: other.counterparty_guid });
    expect(readStateRows(sb.dataDir).counterparties).toEqual([]);
  });

  it('5,000 of them: each further onboarding still answers, and the database holds them all', async () => {
    // `sandbox.changed` carries only what changed and the sizes (O(1) per change), so what this
    // measures is what the storage does per change.
    const dataDir = await tempDir();
    const sandbox = await createSandbox({ dataDir, events: new EventHub() });
    const { url } = await sandbox.listen({ host: '127.0.0.1', port: 0 });
    const sb = { sandbox, url, dataDir, close: () => sandbox.close() };
    const { jwk } = await makeBankKey();
    const ROUNDS = 100;
    const PER_ROUND = 50;
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(Array.from({ length: PER_ROUND }, () => sb.sandbox.onboard({ jwk })));
    }
    for (let i = 0; i < 10; i++) {
      const r = await call(sb.url, 'POST', '/sandbox/v1/counterparties', { json: { jwk } });
      expect(r.status).toBe(201);
    }
    expect(readStateRows(sb.dataDir).counterparties).toHaveLength(ROUNDS * PER_ROUND + 10);
    await sb.close();
    const again = await startSandbox({ dataDir: sb.dataDir });
    expect((await again.sandbox.status()).counterparties).toHaveLength(ROUNDS * PER_ROUND + 10);
  }, 300_000);
});

describe('traces', () => {
  it('keep the newest 500 in the database', async () => {
    const sb = await startWithCounterparty();
    for (let i = 0; i < 510; i++) {
      await sb.sandbox.signIn({ counterparty_guid: sb.guid, token: `bad-${i}` });
    }
    expect(readStateRows(sb.dataDir).traces).toBe(500);
    const newest = (await sb.sandbox.traces({ limit: 1 }))[0]!.id;
    await sb.close();
    const again = await startSandbox({ dataDir: sb.dataDir });
    const traces = await again.sandbox.traces({ limit: 1000 });
    expect(traces).toHaveLength(500);
    expect(traces[0]!.id).toBe(newest);
  }, 60_000);
});

describe('a damaged row', () => {
  it('is reported naming the database and the row, and nothing is changed', async () => {
    const sb = await startWithCounterparty();
    await sb.close();
    const db = openDatabase(sb.dataDir);
    db.prepare('UPDATE sandbox_counterparties SET record = \'{"counterparty_guid": 1\' WHERE guid = ?').run(
      sb.guid,
    );
    db.close();
    const error = await createSandbox({ dataDir: sb.dataDir, events: new EventHub() }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toMatchObject({ code: 'STATE_DAMAGED' });
    expect((error as Error).message).toContain(path.join(sb.dataDir, 'console.db'));
    expect((error as Error).message).toContain(`sandbox_counterparties ${sb.guid}`);
    const check = openDatabase(sb.dataDir, { readOnly: true });
    expect(check.prepare('SELECT record FROM sandbox_counterparties').get()?.record).toBe(
      '{"counterparty_guid": 1',
    );
    check.close();
  });
});

describe('kill -9 during writes', () => {
  let child = '';
  beforeAll(async () => {
    child = await bundleChild(
      path.join(here, 'fixtures', 'onboard-child.ts'),
      path.join(await tempDir(), 'onboard-child.mjs'),
    );
  });

  /** Runs the child until it printed `acks` committed onboardings, then SIGKILLs it. */
  async function runAndKill(dataDir: string, jwk: object, acks: number): Promise<string[]> {
    const acked: string[] = [];
    await runUntilKilled(child, [dataDir, JSON.stringify(jwk)], (line) => {
      if (/^[0-9a-f-]{36}$/.test(line)) acked.push(line);
      return acked.length >= acks;
    });
    return acked;
  }

  it('leaves no temp file and a state that reopens with every committed onboarding', async () => {
    const dataDir = await tempDir();
    const { jwk } = await makeBankKey();
    const all: string[] = [];
    for (const acks of [150, 300]) {
      all.push(...(await runAndKill(dataDir, jwk, acks)));
      const names = await fs.readdir(dataDir, { recursive: true });
      expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
      const sb = await startSandbox({ dataDir });
      const known = new Set((await sb.sandbox.status()).counterparties.map((c) => c.counterparty_guid));
      for (const guid of all) expect(known.has(guid)).toBe(true);
      await sb.close();
    }
  }, 120_000);
});
