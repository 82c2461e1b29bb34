/**
 * A profile as the segment-log version wrote it (before issue 12 moved its stores into
 * console.db), made from a real run of today's core: the same records, in the old files.
 *
 * - events: `events/seg-NNNNNN.jsonl`, written by the old engine itself (the verbatim copy in
 *   test/core/store/fixtures/legacy-segment-log.ts), whole (a callback's checks and token, as the
 *   old bank stored them), and only the kinds the old core stored: callbacks and notifications
 *   (it recorded no exchange or trace events);
 * - the sandbox: `sandbox/state.json` (`{format, version, settings, keys, counterparties,
 *   traces}`, traces oldest first), as state-db.test.ts builds it;
 * - the service exchanges: `service/exchanges.jsonl`, written by the old history class
 *   (test/core/service/fixtures/legacy-exchange-history.ts); the signed pairs:
 *   `signed-pairs.json`, one `{obj, sub, at}` per line;
 * - the walkthrough: `walkthrough/<env>.json` in the old Progress shape: `bank_url` and `probe`,
 *   and no `own` (it did not exist);
 * - every other file (vault, keys, environments, the bank's customers) as it is: those did not
 *   move into the database.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { EventHub } from '../../../electron/core/event-hub';
import type { ConsoleCore } from '../../../electron/core/console-core';
import { rebuildingReader } from '../../../electron/core/bank/callback-detail';
import { openDatabase } from '../../../electron/core/store/db';
import type { NewEvent } from '../../../electron/core/store';
import { openLegacySegmentLog } from '../store/fixtures/legacy-segment-log';
import { ExchangeHistory } from '../service/fixtures/legacy-exchange-history';

/** What the new version keeps in console.db, or beside it for the claim: not copied. */
const NOT_OLD = /^(console\.db|owner\.|recovery\.lock)/;

function rows(dataDir: string, sql: string): Array<Record<string, unknown>> {
  const db = openDatabase(dataDir, { readOnly: true });
  try {
    return db.prepare(sql).all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

const records = (dataDir: string, sql: string) => rows(dataDir, sql).map((r) => JSON.parse(String(r.record)));

/** Reads the events of `core` whole, oldest first, as the old engine would have stored them. */
export async function oldEvents(core: ConsoleCore): Promise<NewEvent[]> {
  const out: NewEvent[] = [];
  for await (const e of rebuildingReader(await core.store()).scan()) {
    if (e.kind !== 'callback' && e.kind !== 'notification') continue;
    const { id: _id, data: _data, ...event } = e;
    out.push(event);
  }
  return out;
}

/**
 * Writes into the empty folder `to` the old version's files for the profile in `from` (whose
 * core is closed), with `events` from {@link oldEvents}.
 */
export async function writeOldProfile(from: string, to: string, events: NewEvent[]): Promise<void> {
  await fs.mkdir(to, { recursive: true, mode: 0o700 });
  for (const name of await fs.readdir(from)) {
    if (!NOT_OLD.test(name)) await fs.cp(path.join(from, name), path.join(to, name), { recursive: true });
  }

  const log = await openLegacySegmentLog({ dataDir: to, events: new EventHub() });
  for (const e of events) await log.append(e, { durable: true });
  await log.close();

  const settings = records(from, 'SELECT record FROM sandbox_settings');
  const state = {
    format: 'dets-console.sandbox',
    version: 1,
    settings: settings[0] ?? null,
    keys: records(from, 'SELECT record FROM sandbox_keys ORDER BY rowid'),
    counterparties: records(from, 'SELECT record FROM sandbox_counterparties ORDER BY rowid'),
    traces: records(from, 'SELECT record FROM sandbox_traces ORDER BY seq'),
  };
  await fs.mkdir(path.join(to, 'sandbox'), { mode: 0o700 });
  await fs.writeFile(path.join(to, 'sandbox', 'state.json'), JSON.stringify(state), { mode: 0o600 });

  const history = new ExchangeHistory(to);
  for (const x of records(from, 'SELECT record FROM service_exchanges ORDER BY seq')) await history.append(x);
  const pairs = rows(from, 'SELECT obj, sub, at_ms FROM signed_pairs ORDER BY seq');
  await fs.writeFile(
    path.join(to, 'signed-pairs.json'),
    pairs.map((p) => `${JSON.stringify({ obj: p.obj, sub: p.sub, at: Number(p.at_ms) })}\n`).join(''),
    { mode: 0o600 },
  );

  await fs.mkdir(path.join(to, 'walkthrough'), { mode: 0o700 });
  for (const record of records(from, 'SELECT record FROM walkthrough_progress')) {
    const { own: _own, ...rest } = record as { own: unknown; environment_id: string };
    const old = { ...rest, bank_url: null, probe: null };
    await fs.writeFile(
      path.join(to, 'walkthrough', `${rest.environment_id}.json`),
      `${JSON.stringify(old, null, 2)}\n`,
      { mode: 0o600 },
    );
  }
}
