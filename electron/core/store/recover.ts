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
import { dbFile, isDamagedDb, openDatabaseFile, type Database } from './db';
import type { EventDetail } from '../../contract/schemas/events';
import { claimProfile, fenceOneShotWriters } from './owner';
import { readRecords, whereOf } from './reader';
import { parseEventId, RETENTION_CLASSES, rowOf, type EventRow } from './records';
import { copyTables } from './recover-tables';
import { headerProblems, pageSizeOfFile, rebuiltCopy, scanEventPages } from './salvage';
import { WriterClient, quickCheck } from './writer';
import type { ClassCaps } from './writer-protocol';

export interface RecoverReport {
  /** Events copied into the fresh database (read, when the database was sound). */
  recovered: number;
  /** Of those, the events found by reading the file page by page (no b-tree walk reached them). */
  byPages: number;
  /** Rows of the profile's other tables copied, by table (those with any). */
  tables: { table: string; rows: number }[];
  /** What quick_check (and the header's own checks) found in the old file ([] when sound). */
  problems: string[];
  /** Where the old file now is; null when it was sound and left in place. */
  keptAs: string | null;
  /** Where rows could not be read, in words. */
  unreadable: string[];
  /** False when nothing of the file could be read: nothing of it is in the fresh database. */
  opened: boolean;
}

const CHUNK = 2000;

/** How many events a pass has read so far: `checking` only reads, `copying` writes the fresh file. */
export type RecoverProgress = (events: number, pass: 'checking' | 'copying') => void;

export interface RecoverOptions {
  /**
   * The caller already holds the profile's claim (an owner running, at its start, the recovery
   * asked for from the UI); otherwise the recovery claims it for as long as it runs.
   */
  claimed?: boolean;
  /** Told once when one-shot commands writing the database (`jwt sign`) must finish first. */
  onWaitForWriters?: () => void;
}

/**
 * Copies everything readable of `<dataDir>/console.db` into a fresh database and swaps it in,
 * holding the profile's claim throughout (owner.ts): it refuses (CONFLICT, naming the owner)
 * while the desktop app, `serve` or `sandbox` runs, and an owner started meanwhile waits.
 */
export async function recoverDatabase(
  dataDir: string,
  onProgress?: RecoverProgress,
  options: RecoverOptions = {},
): Promise<RecoverReport> {
  const file = dbFile(dataDir);
  if (!fs.existsSync(file)) throw new ConsoleError('NOT_FOUND', `There is no database at ${file}.`);
  const claim = options.claimed ? null : await claimProfile(dataDir, 'store recover');
  try {
    // One-shot writers run beside owners, not beside a recovery (owner.ts RECOVERY_LOCK).
    const fence = await fenceOneShotWriters(dataDir, { onWait: options.onWaitForWriters });
    try {
      return await recoverClaimed(file, onProgress);
    } finally {
      fence.release();
    }
  } finally {
    claim?.release();
  }
}

async function recoverClaimed(file: string, onProgress?: RecoverProgress): Promise<RecoverReport> {
  const header = headerProblems(file);
  const problems = [
    ...header,
    ...(await quickCheck(file)).filter((p) => header.length === 0 || !/not a database/i.test(p)),
  ];
  const fresh = `${file}.recovering`;
  // A header SQLite refuses (or a file cut short) is read through a copy with a rebuilt header.
  const salvage = `${file}.salvage`;
  const leftovers = [fresh, `${fresh}-wal`, `${fresh}-shm`, salvage, `${salvage}-journal`];
  for (const f of leftovers) fs.rmSync(f, { force: true }); // our own leftovers
  const source = header.length > 0 ? salvage : file;
  const pageSize = header.length > 0 ? rebuiltCopy(file, salvage).pageSize : pageSizeOfFile(file);
  const unreadable: string[] = [];
  let old: Database | null = null;
  try {
    old = openDatabaseFile(source, { readOnly: true });
  } catch (err) {
    // A newer version's database, a permission: not damage, so nothing is changed.
    if (!isDamagedDb(err)) throw err;
    unreadable.push(`the database as SQLite reads it: ${err.details.why}`);
  }
  try {
    if (old && problems.length === 0) {
      // A first pass that only reads: a sound database is left as it is, and no copy is written.
      const reading = old;
      old = null; // copyEvents closes it, however it ends
      const read = await copyEvents(reading, null, unreadable, onProgress);
      const tables = copyTables(file, null, unreadable);
      if (unreadable.length === 0)
        return { recovered: read.n, byPages: 0, tables, problems, keptAs: null, unreadable, opened: true };
      unreadable.length = 0; // the copy meets them again and reports them
      old = openDatabaseFile(file, { readOnly: true });
    }
    openDatabaseFile(fresh).close(); // schema and pragmas
    const copying = old;
    old = null; // copyEvents closes it, however it ends
    const damageBefore = unreadable.length;
    const copied = copying
      ? await copyEvents(copying, fresh, unreadable, onProgress)
      : { n: 0, seqs: new Set<number>() };
    // What no b-tree walk reached (a lost interior page, a file cut short): page by page, when
    // the walk over the events met damage or could not start.
    const walkFailed = copying === null || unreadable.length > damageBefore || header.length > 0;
    const byPages = walkFailed ? await copyByPages(source, pageSize, fresh, copied.seqs) : 0;
    const tables = copying ? copyTables(source, fresh, unreadable) : [];
    checkpointed(fresh);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const keptAs = `${file}.damaged-${stamp}`;
    swapIn(file, fresh, keptAs);
    const recovered = copied.n + byPages;
    return {
      recovered,
      byPages,
      tables,
      problems,
      keptAs,
      unreadable,
      opened: copying !== null || byPages > 0,
    };
  } catch (err) {
    // A failed copy (a full disk, an I/O error) leaves the damaged file as it was and no
    // half-written copy beside it.
    old?.close();
    for (const f of [fresh, `${fresh}-wal`, `${fresh}-shm`]) fs.rmSync(f, { force: true });
    throw err;
  } finally {
    for (const f of [salvage, `${salvage}-journal`]) fs.rmSync(f, { force: true });
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
  options: RecoverOptions = {},
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
    const report = await recoverDatabase(
      dataDir,
      (n, pass) => {
        const line = progressLine(n, pass);
        if (line) log(`event store: recovery: ${line}`);
      },
      options,
    );
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
  if (report.byPages > 0)
    lines.push(
      `${report.byPages} of the events were found by reading the file page by page (no path through the damaged pages reached them)`,
    );
  // What cannot be seen (README "Store recovery"): SQLite stops reading a WAL at its first frame
  // whose checksum fails and treats the rest as never written, and quick_check then sees a sound file.
  if (report.keptAs !== null || report.problems.length > 0)
    lines.push(
      'note: damage to the write-ahead log (console.db-wal) cannot be detected: commits after a damaged frame are silently dropped, and quick_check still calls the file sound',
    );
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

/** The writer's retention off: a recovery keeps every event it finds. */
const KEEP_ALL: ClassCaps = Object.fromEntries(RETENTION_CLASSES.map((c) => [c, null])) as ClassCaps;

/**
 * Stores `events` into `fresh` through the writer, which rebuilds their text, search and class
 * counts as it stores them; with `fresh` null, only counts them (a check). How many, and their
 * seqs.
 */
async function storeAll(
  events: AsyncIterable<EventDetail> | Iterable<EventDetail>,
  fresh: string | null,
  onProgress?: RecoverProgress,
): Promise<{ n: number; seqs: Set<number> }> {
  const writer = fresh === null ? null : new WriterClient(fresh, KEEP_ALL);
  const seqs = new Set<number>();
  try {
    let rows: EventRow[] = [];
    const commit = async () => {
      if (rows.length === 0) return;
      const r = await writer!.request({ type: 'commit', rows, durable: true, keepAll: true });
      if (!r.ok) throw new ConsoleError('INTERNAL', `Writing ${fresh} failed: ${r.message ?? ''}`);
      rows = [];
      onProgress?.(seqs.size, 'copying');
    };
    for await (const e of events) {
      const seq = parseEventId(e.id)!;
      if (seqs.has(seq)) continue;
      seqs.add(seq);
      if (!writer) {
        if (seqs.size % CHUNK === 0) onProgress?.(seqs.size, 'checking');
        continue;
      }
      rows.push(rowOf(e, JSON.stringify(e), seq));
      if (rows.length >= CHUNK) await commit();
    }
    if (writer) await commit();
  } finally {
    await writer?.close();
  }
  return { n: seqs.size, seqs };
}

/** Every readable event of `old` (closed afterwards) into `fresh` (or only read: null). */
async function copyEvents(
  old: Database,
  fresh: string | null,
  unreadable: string[],
  onProgress?: RecoverProgress,
): Promise<{ n: number; seqs: Set<number> }> {
  try {
    const events = readRecords(old, {
      after: 0,
      where: whereOf({}),
      onDamage: (why) => unreadable.push(why),
    });
    return await storeAll(events, fresh, onProgress);
  } finally {
    old.close();
  }
}

/** The events of `source`'s pages that `copied` lacks, into `fresh`; how many. */
async function copyByPages(
  source: string,
  pageSize: number,
  fresh: string,
  copied: Set<number>,
): Promise<number> {
  function* missing(): Generator<EventDetail> {
    for (const e of scanEventPages(source, pageSize)) if (!copied.has(parseEventId(e.id)!)) yield e;
  }
  return (await storeAll(missing(), fresh)).n;
}
