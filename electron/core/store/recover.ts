/**
 * `dets-console store recover` (issue 12): copies every readable event of a damaged
 * `console.db` into a fresh database and puts the fresh one in its place. The damaged file (and
 * its WAL, which may hold the last commits) is renamed aside, never deleted. It refuses while a
 * `serve` or the desktop app has the profile open (owner.ts): the copy is of what the file holds
 * at that moment, and the process would go on writing into the file set aside.
 */
import fs from 'node:fs';
import { ConsoleError } from '../../contract/errors';
import { dbFile, openDatabaseFile } from './db';
import { describeOwners, otherOwners } from './owner';
import { readRecords, whereOf } from './reader';
import { parseEventId, rowOf, type EventRow } from './records';
import { WriterClient, quickCheck } from './writer';

export interface RecoverReport {
  /** Events copied into the fresh database. */
  recovered: number;
  /** What quick_check found in the old file before the copy ([] when sound). */
  problems: string[];
  /** Where the old file now is. */
  keptAs: string;
  /** Where rows could not be read, in words. */
  unreadable: string[];
}

const CHUNK = 2000;

export async function recoverDatabase(
  dataDir: string,
  onProgress?: (recovered: number) => void,
): Promise<RecoverReport> {
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
  let old;
  try {
    old = openDatabaseFile(file, { readOnly: true });
  } catch (err) {
    throw new ConsoleError(
      'STATE_DAMAGED',
      `Nothing can be read from ${file} (${err instanceof Error ? err.message : String(err)}); it was left untouched.`,
      { file },
    );
  }
  openDatabaseFile(fresh).close(); // schema and pragmas
  const writer = new WriterClient(fresh, {
    ack: null,
    rejected: null,
    callback: null,
    exchange: null,
    trace: null,
    refused: null,
  });
  const unreadable: string[] = [];
  let recovered = 0;
  try {
    let rows: EventRow[] = [];
    const commit = async () => {
      if (rows.length === 0) return;
      const r = await writer.request({ type: 'commit', rows, durable: true, keepAll: true });
      if (!r.ok) throw new ConsoleError('INTERNAL', `Writing ${fresh} failed: ${r.message ?? ''}`);
      recovered += rows.length;
      rows = [];
      onProgress?.(recovered);
    };
    for await (const e of readRecords(old, {
      after: 0,
      where: whereOf({}),
      onDamage: (why) => unreadable.push(why),
    })) {
      const text = JSON.stringify(e);
      rows.push(rowOf(e, text, parseEventId(e.id)!));
      if (rows.length >= CHUNK) await commit();
    }
    await commit();
  } finally {
    await writer.close();
    old.close();
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const keptAs = `${file}.damaged-${stamp}`;
  // The old file and its WAL step aside together; only then does the fresh one take its name.
  fs.renameSync(file, keptAs);
  for (const ext of ['-wal', '-shm'])
    if (fs.existsSync(`${file}${ext}`)) fs.renameSync(`${file}${ext}`, `${keptAs}${ext}`);
  fs.renameSync(fresh, file);
  for (const ext of ['-wal', '-shm']) fs.rmSync(`${fresh}${ext}`, { force: true });
  return { recovered, problems, keptAs, unreadable };
}
