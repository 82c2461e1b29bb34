/**
 * `dets-console store recover` (issue 12): copies everything readable of a damaged `console.db`
 * into a fresh database and puts the fresh one in its place: every readable event (its text,
 * search and class counts rebuilt by the writer as it stores them), and every readable row of the
 * profile's other tables (the sandbox's settings, keys, counterparties and traces, walkthrough
 * progress, service exchanges, signed pairs, `meta`). The damaged file (and its WAL, which may
 * hold the last commits) is renamed aside, never deleted. A database found sound (quick_check
 * clean, every row read) is left as it is. It refuses while a `serve` or the desktop app has the
 * profile open (owner.ts): the copy is of what the file holds at that moment, and the process
 * would go on writing into the file set aside.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConsoleError } from '../../contract/errors';
import type { Notice } from '../../contract/schemas/app';
import { dbFile, isCorruption, isDamagedDb, openDatabaseFile, type Database } from './db';
import { describeOwners, otherOwners } from './owner';
import { readRecords, whereOf } from './reader';
import { parseEventId, rowOf, type EventRow } from './records';
import { WriterClient, quickCheck } from './writer';

export interface RecoverReport {
  /** Events copied into the fresh database (read, when the database was sound). */
  recovered: number;
  /** Rows of the profile's other tables copied, by table (those with any). */
  tables: { table: string; rows: number }[];
  /** What quick_check found in the old file before the copy ([] when sound). */
  problems: string[];
  /** Where the old file now is; null when it was sound and left in place. */
  keptAs: string | null;
  /** Where rows could not be read, in words. */
  unreadable: string[];
  /** False when the file could not be opened at all: nothing of it is in the fresh database. */
  opened: boolean;
}

const CHUNK = 2000;

/** How many events a pass has read so far: `checking` only reads, `copying` writes the fresh file. */
export type RecoverProgress = (events: number, pass: 'checking' | 'copying') => void;

export async function recoverDatabase(dataDir: string, onProgress?: RecoverProgress): Promise<RecoverReport> {
  const file = dbFile(dataDir);
  if (!fs.existsSync(file)) throw new ConsoleError('NOT_FOUND', `There is no database at ${file}.`);
  // The fresh copy replaces the file by renaming: a process holding it open would go on writing
  // into the copy set aside, so recovery waits until nothing has the profile open.
  const owners = otherOwners(dataDir);
  if (owners.length > 0) {
    throw new ConsoleError(
      'CONFLICT',
      `${file} is open in ${describeOwners(owners)}: stop it first (a recovery replaces the file, and what that process writes after it would be lost). Nothing was changed.`,
      { file },
    );
  }
  const problems = await quickCheck(file);
  const fresh = `${file}.recovering`;
  for (const f of [fresh, `${fresh}-wal`, `${fresh}-shm`]) fs.rmSync(f, { force: true }); // our own leftover
  const unreadable: string[] = [];
  let old: Database | null = null;
  try {
    old = openDatabaseFile(file, { readOnly: true });
  } catch (err) {
    // A newer version's database, a permission: not damage, so nothing is changed.
    if (!isDamagedDb(err)) throw err;
    // Nothing can be read: the file is set aside all the same, so the profile can start afresh.
    unreadable.push(`the whole file: ${err.details.why}`);
  }
  try {
    if (old && problems.length === 0) {
      // A first pass that only reads: a sound database is left as it is, and no copy is written.
      const reading = old;
      old = null; // copyEvents closes it, however it ends
      const read = await copyEvents(reading, null, unreadable, onProgress);
      const tables = copyTables(file, null, unreadable);
      if (unreadable.length === 0)
        return { recovered: read, tables, problems, keptAs: null, unreadable, opened: true };
      unreadable.length = 0; // the copy meets them again and reports them
      old = openDatabaseFile(file, { readOnly: true });
    }
    openDatabaseFile(fresh).close(); // schema and pragmas
    const copying = old;
    old = null; // copyEvents closes it, however it ends
    const opened = copying !== null;
    const recovered = copying ? await copyEvents(copying, fresh, unreadable, onProgress) : 0;
    const tables = opened ? copyTables(file, fresh, unreadable) : [];
    checkpointed(fresh);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const keptAs = `${file}.damaged-${stamp}`;
    swapIn(file, fresh, keptAs);
    return { recovered, tables, problems, keptAs, unreadable, opened };
  } catch (err) {
    // A failed copy (a full disk, an I/O error) leaves the damaged file as it was and no
    // half-written copy beside it.
    old?.close();
    for (const f of [fresh, `${fresh}-wal`, `${fresh}-shm`]) fs.rmSync(f, { force: true });
    throw err;
  }
}

/**
 * Puts `fresh` in `file`'s place and keeps the old file (and its WAL, which may hold the last
 * commits) as `keptAs`. Whenever the process dies on the way (kill -9), `file` still names a
 * database: the old names are hard links first, the old WAL goes, and only then does one rename
 * put the fresh file in place. Were the old WAL left beside the fresh file, SQLite would replay
 * its frames into it.
 */
function swapIn(file: string, fresh: string, keptAs: string): void {
  fs.linkSync(file, keptAs);
  for (const ext of ['-wal', '-shm'])
    if (fs.existsSync(`${file}${ext}`)) fs.linkSync(`${file}${ext}`, `${keptAs}${ext}`);
  for (const ext of ['-wal', '-shm']) fs.rmSync(`${file}${ext}`, { force: true });
  fs.renameSync(fresh, file);
  for (const ext of ['-wal', '-shm']) fs.rmSync(`${fresh}${ext}`, { force: true });
}

/** `<data-dir>/recover-requested.json`: a recovery asked for from the UI, run at the next start. */
export const RECOVERY_REQUEST = 'recover-requested.json';

/**
 * Asks for a recovery at the console's next start (the UI's way to `store recover`: the running
 * console has the database open, so it cannot replace it under itself).
 */
export function requestRecovery(dataDir: string): { requested_at: string } {
  const requested_at = new Date().toISOString();
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dataDir, RECOVERY_REQUEST), `${JSON.stringify({ requested_at })}\n`, {
    mode: 0o600,
  });
  return { requested_at };
}

/**
 * Runs the recovery requestRecovery asked for, before anything opens the database (the core does
 * this first thing for the app and `serve`). Logs what it did and never throws: the console
 * starts either way. The request is removed once tried, unless another process had the profile
 * open; then the next start tries again. Returns its outcome as a notice for the page (null when
 * none was asked for).
 */
export async function recoverIfRequested(
  dataDir: string,
  log: (line: string) => void,
): Promise<Notice | null> {
  const request = path.join(dataDir, RECOVERY_REQUEST);
  if (!isFile(request)) return null;
  log(`event store: running the recovery asked for (${request})`);
  const forget = () => {
    try {
      fs.rmSync(request, { force: true });
    } catch (err) {
      log(`event store: could not remove ${request}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const notice = (level: Notice['level'], message: string): Notice => ({
    at: new Date().toISOString(),
    level,
    message: `Recovery at start: ${message}`,
  });
  try {
    const report = await recoverDatabase(dataDir, (n, pass) => {
      const line = progressLine(n, pass);
      if (line) log(`event store: recovery: ${line}`);
    });
    forget();
    const lines = recoveryLines(report, dbFile(dataDir));
    for (const line of lines) log(`event store: ${line}`);
    const lost = report.unreadable.length;
    return notice(
      !report.opened || lost > 0 ? 'warning' : 'info',
      `${lines.at(-1)!}${lost > 0 ? ` (${lost} unreadable part${lost === 1 ? '' : 's'}, listed in the log)` : ''}`,
    );
  } catch (err) {
    const busy = err instanceof ConsoleError && err.code === 'CONFLICT';
    if (!busy) forget();
    const why = `${err instanceof Error ? err.message : String(err)}${busy ? ' It runs at the next start.' : ''}`;
    log(`event store: the recovery asked for did not run: ${why}`);
    return notice(busy ? 'warning' : 'error', `it did not run: ${why}`);
  }
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** A progress line every 100,000 events of a pass, else null. */
export function progressLine(events: number, pass: 'checking' | 'copying'): string | null {
  return events % 100_000 === 0 ? `${events} events ${pass === 'checking' ? 'read' : 'copied'}…` : null;
}

/** What a recovery did, in words: its problems and unreadable rows, then its outcome last. */
export function recoveryLines(report: RecoverReport, file: string): string[] {
  const lines: string[] = [];
  if (report.problems.length > 0)
    lines.push(`the database was damaged: ${report.problems.slice(0, 5).join('; ')}`);
  for (const u of report.unreadable) lines.push(`unreadable: ${u}`);
  const events = `${report.recovered} event${report.recovered === 1 ? '' : 's'}`;
  const rows = report.tables.reduce((n, t) => n + t.rows, 0);
  const others =
    rows === 0
      ? ''
      : ` and ${rows} row${rows === 1 ? '' : 's'} of the profile's other tables (${report.tables.map((t) => `${t.table} ${t.rows}`).join(', ')})`;
  lines.push(
    !report.opened
      ? `Nothing could be read from ${file}. It is kept as ${report.keptAs ?? ''}, and a fresh, empty database takes its place.`
      : report.keptAs === null
        ? `The database ${file} is sound: quick_check found nothing, and all ${events}${others} were read. Nothing was changed.`
        : `Recovered ${events}${others} into a fresh database; the old file is kept as ${report.keptAs}`,
  );
  return lines;
}

/** Everything of `file` into its main file: its WAL is not carried when it is renamed into place. */
function checkpointed(file: string): void {
  const db = openDatabaseFile(file);
  try {
    const [c] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (c && c.busy !== 0)
      throw new ConsoleError(
        'INTERNAL',
        `${file} could not be checkpointed; the damaged file was left untouched.`,
      );
  } finally {
    db.close();
  }
}

/**
 * Stores every readable event of `old` (closed afterwards) into `fresh` through the writer, which
 * rebuilds their text, search and class counts as it stores them; with `fresh` null, only reads
 * them (a check). How many.
 */
async function copyEvents(
  old: Database,
  fresh: string | null,
  unreadable: string[],
  onProgress?: RecoverProgress,
): Promise<number> {
  const writer =
    fresh === null
      ? null
      : new WriterClient(fresh, {
          ack: null,
          rejected: null,
          callback: null,
          exchange: null,
          trace: null,
          refused: null,
        });
  let done = 0;
  try {
    let rows: EventRow[] = [];
    let read = 0;
    const commit = async () => {
      if (read === 0) return;
      if (writer) {
        const r = await writer.request({ type: 'commit', rows, durable: true, keepAll: true });
        if (!r.ok) throw new ConsoleError('INTERNAL', `Writing ${fresh} failed: ${r.message ?? ''}`);
      }
      done += read;
      read = 0;
      rows = [];
      onProgress?.(done, writer ? 'copying' : 'checking');
    };
    for await (const e of readRecords(old, {
      after: 0,
      where: whereOf({}),
      onDamage: (why) => unreadable.push(why),
    })) {
      if (writer) rows.push(rowOf(e, JSON.stringify(e), parseEventId(e.id)!));
      if (++read >= CHUNK) await commit();
    }
    await commit();
  } finally {
    await writer?.close();
    old.close();
  }
  return done;
}

/**
 * Tables the writer rebuilds from the events it stores (their text, the full-text index and
 * its shadow tables, the class counts), SQLite's own, and the schema's version: not copied.
 */
function rebuilt(table: string): boolean {
  return (
    /^(events|events_text|events_fts_pending|class_stats|schema_version|sqlite_sequence)$/.test(table) ||
    table.startsWith('events_fts') ||
    table.startsWith('sqlite_')
  );
}

/**
 * Copies every readable row of `from`'s tables that the fresh database also has (the columns
 * both have) and that the writer does not rebuild, in rowid order, `CHUNK` at a time; a chunk
 * that meets damage is read again row by row, and what still fails is reported and skipped.
 * `meta`'s high_seq keeps the higher of the two (event ids are never given twice), and each
 * AUTOINCREMENT counter the higher of the two. With `to` null, only reads them (a check).
 */
function copyTables(
  from: string,
  to: string | null,
  unreadable: string[],
): { table: string; rows: number }[] {
  const old = openDatabaseFile(from, { readOnly: true });
  const fresh = to === null ? null : openDatabaseFile(to);
  const copied: { table: string; rows: number }[] = [];
  const columnsOf = (db: Database, table: string) =>
    db
      .prepare(`SELECT name FROM pragma_table_info(?)`)
      .all(table)
      .map((r) => String(r.name));
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  try {
    let names: string[];
    try {
      names = old
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all()
        .map((r) => String(r.name));
    } catch (err) {
      if (!isCorruption(err)) throw err;
      unreadable.push(`the list of tables: ${err instanceof Error ? err.message : String(err)}`);
      return copied;
    }
    const freshNames = fresh
      ? new Set(
          fresh
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .all()
            .map((r) => String(r.name)),
        )
      : null;
    fresh?.exec('BEGIN');
    try {
      for (const table of names) {
        if (rebuilt(table) || (freshNames && !freshNames.has(table))) continue;
        const want = fresh ? new Set(columnsOf(fresh, table)) : null;
        const cols = columnsOf(old, table).filter((c) => !want || want.has(c));
        if (cols.length === 0) continue;
        const list = cols.map(quote).join(', ');
        const chunk = old.prepare(
          `SELECT rowid AS "__rowid", ${list} FROM ${quote(table)} WHERE rowid > ? ORDER BY rowid LIMIT ${CHUNK}`,
        );
        const one = old.prepare(`SELECT ${list} FROM ${quote(table)} WHERE rowid = ?`);
        const insert = !fresh
          ? null
          : table === 'meta'
            ? fresh.prepare(
                `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value =
                   CASE WHEN key = 'high_seq' THEN CAST(max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER)) AS TEXT)
                   ELSE excluded.value END`,
              )
            : fresh.prepare(
                `INSERT OR REPLACE INTO ${quote(table)} (${list}) VALUES (${cols.map(() => '?').join(', ')})`,
              );
        let rows = 0;
        let refused = 0;
        let refusal = '';
        const put = (r: Record<string, unknown>) => {
          try {
            insert?.run(...cols.map((c) => r[c]));
            rows++;
          } catch (err) {
            // A row the fresh schema will not take (a constraint): said, not fatal.
            refused++;
            refusal = err instanceof Error ? err.message : String(err);
          }
        };
        let after = 0;
        for (;;) {
          let batch: Record<string, unknown>[];
          try {
            batch = chunk.all(after);
          } catch (err) {
            if (!isCorruption(err)) throw err;
            const why = err instanceof Error ? err.message : String(err);
            // Row by row, up to the highest rowid the table can still say it has.
            let top = after;
            try {
              top = Number(old.prepare(`SELECT max(rowid) AS m FROM ${quote(table)}`).get()?.m ?? after);
            } catch {
              // unknown: nothing past `after` can be found
            }
            const end = Math.min(top, after + CHUNK);
            if (end <= after) {
              unreadable.push(`${table}: ${why}: the rows after rowid ${after} could not be read`);
              break;
            }
            let skipped = 0;
            for (let id = after + 1; id <= end; id++) {
              let r: Record<string, unknown> | undefined;
              try {
                r = one.get(id);
              } catch {
                skipped++;
                continue;
              }
              if (r) put(r);
            }
            if (skipped > 0)
              unreadable.push(
                `${table}: ${why}: ${skipped} unreadable rows between rowid ${after + 1} and ${end}`,
              );
            if (end >= top) break;
            after = end;
            continue;
          }
          if (batch.length === 0) break;
          for (const r of batch) put(r);
          after = Number(batch[batch.length - 1]!.__rowid);
        }
        if (refused > 0)
          unreadable.push(`${table}: ${refused} rows not taken by the fresh schema (${refusal})`);
        if (rows > 0) copied.push({ table, rows });
      }
      // AUTOINCREMENT counters never go back (a deleted trace's number is not given again).
      if (fresh && freshNames)
        try {
          const counters = old.prepare('SELECT name, seq FROM sqlite_sequence').all();
          const raise = fresh.prepare('UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?');
          const add = fresh.prepare(
            'INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)',
          );
          for (const c of counters) {
            if (!freshNames.has(String(c.name))) continue;
            raise.run(c.seq, c.name);
            add.run(c.name, c.seq, c.name);
          }
        } catch (err) {
          if (!isCorruption(err)) throw err;
          unreadable.push(`sqlite_sequence: ${err instanceof Error ? err.message : String(err)}`);
        }
      fresh?.exec('COMMIT');
    } catch (err) {
      if (fresh?.inTransaction) fresh.exec('ROLLBACK');
      throw err;
    }
  } finally {
    fresh?.close();
    old.close();
  }
  return copied;
}
