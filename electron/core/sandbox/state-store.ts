/**
 * Where the sandbox's state lives: the profile database `<dataDir>/console.db` (issue 12 item 6,
 * DESIGN.md "Storage"), tables `sandbox_*` (store/db.ts, migration 2). A change writes what it
 * changed (a counterparty's row, the keys, one trace, the settings) in one small durable
 * transaction on the state writer's thread (store/profile-db.ts), so a sandbox with thousands of
 * counterparties never rewrites them all and never blocks the event loop.
 *
 * Threat model and failure model: these rows are the only copy of the counterparties the engineer
 * onboarded and of the sandbox's signing key, which is stored only sealed by the vault (aad
 * `sandbox-key:<kid>`, signing-keys.ts), exactly as the old file held it; a row holds no secret in
 * clear. A transaction commits whole or not at all, so `kill -9` leaves either the old or the new
 * row, and no temp file. A row that does not validate is reported as STATE_DAMAGED naming the
 * database and the row, and nothing is written until a load has succeeded.
 *
 * The old `<dataDir>/sandbox/state.json` is migrated once: read and validated (a damaged one is
 * reported and left byte for byte), copied in one transaction that also marks the migration
 * done, and only then renamed aside (`state.json.migrated-<ms>`); the temp files the old writer
 * left after a kill (`.state.json.*.tmp`) are removed.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import type { SandboxSettings } from '../../contract/schemas/sandbox';
import { Trace } from '../../contract/schemas/sandbox';
import { describeIssues, PendingSet, readJsonFileOrNull } from '../common';
import {
  MAX_TRACES,
  StateFile,
  StoredCounterparty,
  StoredSettings,
  StoredSandboxKey,
  type SandboxState,
} from './state-schema';
import { acquireProfileDb, isCorruption, metaStep, type ProfileDb, readMeta, type Step } from '../store';

export const STATE_FILE_NAME = 'state.json';
/** The meta key set in the transaction that copied state.json in. */
const MIGRATED_KEY = 'sandbox_state_migrated_at';
/** What the old writer left behind when killed between its write and its rename. */
const STALE_TEMP = /^\.?state\.json\..*\.tmp$/;

/** `what`: "file <path>" or "database <path>". */
function damaged(what: 'file' | 'database', file: string, problem: string, remedy: string): ConsoleError {
  return new ConsoleError('STATE_DAMAGED', `the sandbox state ${what} ${file} ${problem}. ${remedy}`, {
    file,
  });
}

const FILE_REMEDY =
  'It was left untouched: repair it, or move it away to start the sandbox with an empty state';

/** Reads and validates the old state file; null when there is none. */
async function readLegacyFile(file: string): Promise<StateFile | null> {
  const read = await readJsonFileOrNull(file, {
    unreadable: (err) =>
      damaged(
        'file',
        file,
        `could not be read (${err instanceof Error ? err.message : String(err)})`,
        FILE_REMEDY,
      ),
    notJson: (err) =>
      damaged(
        'file',
        file,
        `is not valid JSON (${err instanceof Error ? err.message : String(err)})`,
        FILE_REMEDY,
      ),
  });
  if (read === null) return null;
  const parsed = StateFile.safeParse(read.value);
  if (!parsed.success)
    throw damaged(
      'file',
      file,
      `does not have the expected shape (${describeIssues(parsed.error, { max: 3, countRest: true })})`,
      FILE_REMEDY,
    );
  return parsed.data;
}

/** Removes the old writer's leftover temp files (they never held the only copy of anything). */
async function removeStaleTemps(dir: string): Promise<void> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names.filter((n) => STALE_TEMP.test(n)).map((n) => fs.rm(path.join(dir, n), { force: true })),
  );
}

// ------------------------------------------------------------------- the statements

const UPSERT_SETTINGS =
  'INSERT INTO sandbox_settings (id, record) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record';
const UPSERT_COUNTERPARTY = `INSERT INTO sandbox_counterparties (guid, created_at, record) VALUES (?, ?, ?)
  ON CONFLICT (guid) DO UPDATE SET record = excluded.record`;
const INSERT_TRACE = 'INSERT INTO sandbox_traces (counterparty_guid, record) VALUES (?, ?)';
// Traces are capped (the newest MAX_TRACES): each insert trims what fell out, by primary key.
const TRIM_TRACES = `DELETE FROM sandbox_traces WHERE seq <=
  (SELECT seq FROM sandbox_traces ORDER BY seq DESC LIMIT 1 OFFSET ${MAX_TRACES})`;

const settingsSteps = (s: SandboxSettings): Step[] => [[UPSERT_SETTINGS, [JSON.stringify(s)]]];
const keySteps = (keys: StoredSandboxKey[]): Step[] => [
  ['DELETE FROM sandbox_keys', []],
  ...keys.map((k): Step => [
    'INSERT INTO sandbox_keys (kid, record) VALUES (?, ?)',
    [k.kid, JSON.stringify(k)],
  ]),
];
const counterpartySteps = (cp: StoredCounterparty): Step[] => [
  [UPSERT_COUNTERPARTY, [cp.counterparty_guid, cp.created_at, JSON.stringify(cp)]],
];
const traceSteps = (t: Trace): Step[] => [
  [INSERT_TRACE, [t.counterparty_guid, JSON.stringify(t)]],
  [TRIM_TRACES, []],
];

export class StateStore {
  private readonly pending = new PendingSet();

  private constructor(private readonly pdb: ProfileDb) {}

  /** The database file, for messages. */
  get file(): string {
    return this.pdb.file;
  }

  /**
   * Opens the sandbox's state in the profile database, migrating an old state.json first
   * (once). `state` is null when the profile has no sandbox state yet. Rejects with
   * STATE_DAMAGED when the old file or a row is unusable (nothing is then written).
   */
  static async open(dataDir: string): Promise<{ store: StateStore; state: SandboxState | null }> {
    const dir = path.join(dataDir, 'sandbox');
    const legacyFile = path.join(dir, STATE_FILE_NAME);
    await removeStaleTemps(dir);
    const legacy = await readLegacyFile(legacyFile);
    const pdb = acquireProfileDb(dataDir);
    const store = new StateStore(pdb);
    try {
      if (legacy) {
        if (readMeta(pdb.db, MIGRATED_KEY) === null)
          await pdb.write([
            ...StateStore.importSteps(legacy),
            metaStep(MIGRATED_KEY, new Date().toISOString()),
          ]);
        // Set aside only once the copy is committed; kept, never deleted.
        await fs.rename(legacyFile, `${legacyFile}.migrated-${Date.now()}`);
      }
      return { store, state: store.load() };
    } catch (err) {
      await pdb.release();
      // A damaged page of the sandbox's tables (issue 24 item 6): the sandbox is unavailable
      // until a recovery, and says so; the rest of the console (the bank endpoints) goes on.
      if (isCorruption(err))
        throw new ConsoleError(
          'STATE_DAMAGED',
          `The sandbox is unavailable until the profile is recovered: its tables in ${pdb.file} cannot be read (${err instanceof Error ? err.message : String(err)}). Stop the console and run \`dets-console store recover\` (the damaged file is kept beside the fresh one).`,
          { file: pdb.file, unavailable: 'sandbox' },
        );
      throw err;
    }
  }

  private static importSteps(state: StateFile): Step[] {
    return [
      ...settingsSteps(state.settings),
      ...keySteps(state.keys),
      ...state.counterparties.flatMap(counterpartySteps),
      ...state.traces.flatMap(traceSteps),
    ];
  }

  /** Every row, validated; STATE_DAMAGED naming the first row that is not usable. */
  private load(): SandboxState | null {
    const db = this.pdb.db;
    const parse = <T>(schema: z.ZodType<T>, table: string, key: string, text: unknown): T => {
      let value: unknown;
      try {
        value = JSON.parse(String(text));
      } catch (err) {
        throw this.damagedRow(table, key, `is not valid JSON (${err instanceof Error ? err.message : err})`);
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success)
        throw this.damagedRow(
          table,
          key,
          `does not have the expected shape (${describeIssues(parsed.error, { max: 3, countRest: true })})`,
        );
      return parsed.data;
    };
    const settingsRow = db.prepare('SELECT record FROM sandbox_settings WHERE id = 1').get();
    const keys = db
      .prepare('SELECT kid, record FROM sandbox_keys ORDER BY rowid')
      .all()
      .map((r) => parse(StoredSandboxKey, 'sandbox_keys', String(r.kid), r.record));
    const counterparties = db
      .prepare('SELECT guid, record FROM sandbox_counterparties ORDER BY rowid')
      .all()
      .map((r) => parse(StoredCounterparty, 'sandbox_counterparties', String(r.guid), r.record));
    const traces = db
      .prepare(
        `SELECT seq, record FROM (SELECT seq, record FROM sandbox_traces ORDER BY seq DESC LIMIT ${MAX_TRACES})
         ORDER BY seq`,
      )
      .all()
      .map((r) => parse(Trace, 'sandbox_traces', String(r.seq), r.record));
    if (!settingsRow && keys.length === 0 && counterparties.length === 0 && traces.length === 0) return null;
    const settings = settingsRow ? parse(StoredSettings, 'sandbox_settings', '1', settingsRow.record) : null;
    return { settings, keys, counterparties, traces };
  }

  private damagedRow(table: string, key: string, problem: string): ConsoleError {
    return damaged(
      'database',
      this.pdb.file,
      `has a damaged row (${table} ${key}: ${problem})`,
      'Nothing was changed: repair or delete that row (sqlite3), or move the database away to start the sandbox empty',
    );
  }

  // --------------------------------------------------------------------------- writes

  saveSettings(settings: SandboxSettings): Promise<void> {
    return this.write(settingsSteps(settings));
  }

  /** The keys as a whole: a rotation changes several at once (new active, old in grace). */
  saveKeys(keys: StoredSandboxKey[]): Promise<void> {
    return this.write(keySteps(keys));
  }

  /** A counterparty with its registered JWKs (at most 100 each, registry.ts): one row. */
  saveCounterparty(cp: StoredCounterparty): Promise<void> {
    return this.write(counterpartySteps(cp));
  }

  deleteCounterparty(guid: string): Promise<void> {
    return this.write([['DELETE FROM sandbox_counterparties WHERE guid = ?', [guid]]]);
  }

  addTrace(trace: Trace): Promise<void> {
    return this.write(traceSteps(trace));
  }

  /** Writes are applied in the order they were asked (one writer thread, one queue). */
  private write(steps: Step[]): Promise<void> {
    return this.pending.track(this.pdb.write(steps));
  }

  /** Waits for every write asked so far. */
  flush(): Promise<void> {
    return this.pending.settle();
  }

  /** Flushes, then gives the database handle back. */
  async close(): Promise<void> {
    await this.flush();
    await this.pdb.release();
  }
}
