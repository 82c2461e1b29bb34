/**
 * The obj/sub pairs the console signed, so the bank endpoints can check a callback's sub
 * (DESIGN.md "Bank endpoints": when the console itself signed JWTs for this obj within the last
 * hour, the callback's sub must equal one of theirs).
 *
 * The pairs are rows of `signed_pairs` in the profile database (`<dataDir>/console.db`, issue 12
 * item 1), indexed by obj and time: subsFor is one indexed read on the main-thread connection
 * (it is on the callback path, spec 4.2's 1 s budget), record one small durable transaction on
 * the writer thread (store/profile-db.ts). Several processes share them: `jwt sign` in the CLI
 * records while a running `serve` reads, and WAL lets each see the other's last commit. Pairs
 * older than 24 hours are removed by the transaction that records a new one.
 *
 * A profile written before this kept the pairs in `<dataDir>/signed-pairs.json` (JSON Lines,
 * `{"obj","sub","at"}`); it is copied in on first use, once, every pair kept, and renamed aside
 * (store/file-migration.ts): a line that cannot be read is reported by number, never dropped in
 * silence, and remains in the renamed file.
 */
import path from 'node:path';
import { acquireProfileDb, defaultLog, migrateJsonLinesFile, type ProfileDb, type Statement } from '../store';
import type { SignedPairs } from './types';

/** The old file (read once, by the migration). */
export const SIGNED_PAIRS_FILE = 'signed-pairs.json';

/** How long a pair is kept at all. */
export const RETENTION_MS = 24 * 3600 * 1000;
/** The default look-back of subsFor (DESIGN.md: "within the last hour"). */
export const DEFAULT_WITHIN_SECONDS = 3600;
const MARKER = 'migrated.signed_pairs';
const INSERT = 'INSERT INTO signed_pairs (obj, sub, at_ms) SELECT ?, ?, ?';

export interface SignedPairsOptions {
  dataDir: string;
  now?: () => number;
  /** Where the one-time migration reports (default: stderr). */
  log?: (line: string) => void;
}

/** A line of the old file: `{obj, sub, at}` with `at` in Unix milliseconds. */
export function isPair(value: unknown): value is { obj: string; sub: string; at: number } {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.obj === 'string' &&
    typeof v.sub === 'string' &&
    typeof v.at === 'number' &&
    Number.isFinite(v.at)
  );
}

/**
 * Opens the signed pairs of a profile. Nothing is opened until first use.
 *
 * @example
 * const pairs = createSignedPairs({ dataDir });
 * await pairs.record('DE89370400440532013000', 'ops@bank.example');
 * await pairs.subsFor('DE89370400440532013000'); // ['ops@bank.example']
 */
export function createSignedPairs(options: SignedPairsOptions): SignedPairs {
  const now = options.now ?? Date.now;
  let ready: Promise<ProfileDb> | null = null;
  let pdb: ProfileDb | null = null;
  let lookup: Statement | null = null;

  /** The database, with the old file copied in (once; a failure is retried on the next use). */
  const open = (): Promise<ProfileDb> =>
    (ready ??= (async () => {
      pdb ??= acquireProfileDb(options.dataDir);
      await migrateJsonLinesFile(pdb, {
        file: path.join(options.dataDir, SIGNED_PAIRS_FILE),
        marker: MARKER,
        log: options.log ?? defaultLog,
        row: (v) =>
          isPair(v)
            ? { sql: INSERT, params: [v.obj, v.sub, Math.round(v.at)] }
            : { why: 'not an {obj, sub, at} pair' },
      });
      return pdb;
    })().catch((err: unknown) => {
      ready = null;
      throw err;
    }));

  return {
    async record(obj, sub, atMs) {
      const db = await open();
      const at = Math.round(atMs ?? now());
      await db.write([
        [INSERT, [obj, sub, at]],
        ['DELETE FROM signed_pairs WHERE at_ms < ?', [now() - RETENTION_MS]],
      ]);
    },

    async subsFor(obj, withinSeconds = DEFAULT_WITHIN_SECONDS) {
      const db = await open();
      // Nothing older than the retention counts, whether or not a record() has removed it yet.
      const since = now() - Math.min(withinSeconds * 1000, RETENTION_MS);
      lookup ??= db.db.prepare(
        'SELECT sub, max(at_ms) AS at FROM signed_pairs WHERE obj = ? AND at_ms >= ? GROUP BY sub ORDER BY at DESC, sub',
      );
      return lookup.all(obj, since).map((r) => String(r.sub));
    },

    async close() {
      await ready?.catch(() => undefined);
      const held = pdb;
      pdb = null;
      ready = null;
      lookup = null;
      await held?.release();
    },
  };
}
