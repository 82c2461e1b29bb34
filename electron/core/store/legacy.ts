/**
 * The one-time migration of a profile written by the segment log of issue 5
 * (`<dataDir>/events/seg-NNNNNN.jsonl`, one JSON record per line) into the database (issue 12).
 *
 * - Every record is kept as it was written (same id, same JSON text, every field).
 * - Resumable: rows are committed in chunks, each with the highest seq it holds as a marker in
 *   the same transaction (`meta.legacy_migrated_upto`), so a crash mid-way resumes after the
 *   last committed chunk and never inserts a row twice.
 * - The old files stay where they are until everything is committed; then the folder is renamed
 *   to `events.migrated` (never deleted: the user removes it once satisfied).
 * - A torn last line of the newest segment (a crash of the old engine) was never acknowledged and
 *   is left out; any other line that does not parse is left out too, counted and logged, and
 *   remains readable in `events.migrated`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from './db';
import { parseEventId, parseRecord, ROW, rowOf, type EventRow } from './records';
import type { WriterClient } from './writer';

export const LEGACY_DIR = 'events';
export const MIGRATED_DIR = 'events.migrated';
const SEGMENT_RE = /^seg-(\d{6,})\.jsonl$/;
const MARKER = 'legacy_migrated_upto';
const CHUNK = 5000;

export function hasLegacyLog(dataDir: string): boolean {
  try {
    return fs.statSync(path.join(dataDir, LEGACY_DIR)).isDirectory();
  } catch {
    return false;
  }
}

export interface MigrationProgress {
  events: number;
  bytesDone: number;
  bytesTotal: number;
}

/** Migrates `<dataDir>/events` if there is one; returns how many events were added. */
export async function migrateLegacyLog(
  db: Database,
  writer: WriterClient,
  dataDir: string,
  options: { onProgress?: (p: MigrationProgress) => void; log: (line: string) => void },
): Promise<number> {
  const dir = path.join(dataDir, LEGACY_DIR);
  if (!hasLegacyLog(dataDir)) return 0;
  const segments = fs
    .readdirSync(dir)
    .map((name) => ({ name, m: SEGMENT_RE.exec(name) }))
    .filter((s): s is { name: string; m: RegExpExecArray } => s.m !== null)
    .map((s) => ({ num: Number(s.m[1]), file: path.join(dir, s.name) }))
    .sort((a, b) => a.num - b.num);
  const done = Number(db.prepare('SELECT value FROM meta WHERE key = ?').get(MARKER)?.value ?? 0);
  const bytesTotal = segments.reduce((n, s) => n + fs.statSync(s.file).size, 0);
  let bytesDone = 0;
  let added = 0;
  let unreadable = 0;
  let rows: EventRow[] = [];
  const commit = async () => {
    if (rows.length === 0) return;
    const upto = rows[rows.length - 1]![ROW.seq];
    // keepAll: the history is migrated whole; retention applies from the next append on.
    const r = await writer.request({
      type: 'commit',
      rows,
      durable: true,
      keepAll: true,
      meta: [[MARKER, String(upto)]],
    });
    if (!r.ok) throw new Error(`migrating ${dir} into the database failed: ${r.message ?? 'commit failed'}`);
    added += rows.length;
    rows = [];
    options.onProgress?.({ events: added, bytesDone, bytesTotal });
  };
  for (const [i, seg] of segments.entries()) {
    const buf = fs.readFileSync(seg.file);
    const newest = i === segments.length - 1;
    let start = 0;
    while (start < buf.length) {
      let nl = buf.indexOf(10, start);
      if (nl < 0) {
        // No newline at the end of the newest segment: a torn tail, never acknowledged. In an
        // older one the line is taken if it parses (counted as unreadable otherwise).
        if (newest) break;
        nl = buf.length;
      }
      const text = buf.toString('utf8', start, nl);
      start = nl + 1;
      if (text === '') continue;
      const record = parseRecord(text);
      const seq = record ? parseEventId(record.id) : null;
      if (!record || seq === null) {
        unreadable++;
        continue;
      }
      if (seq <= done) continue;
      rows.push(rowOf(record, text, seq));
      if (rows.length >= CHUNK) await commit();
    }
    bytesDone += buf.length;
    await commit();
    options.onProgress?.({ events: added, bytesDone, bytesTotal });
  }
  await commit();
  if (unreadable > 0)
    options.log(
      `event store: ${unreadable} unreadable line(s) in ${dir} were not migrated; they remain in ${path.join(dataDir, MIGRATED_DIR)}`,
    );
  // Everything is committed: only now do the old files step aside.
  let target = path.join(dataDir, MIGRATED_DIR);
  if (fs.existsSync(target)) target = `${target}-${Date.now()}`;
  fs.renameSync(dir, target);
  options.log(
    `event store: migrated ${added} event(s) from ${dir} into the database; the old files are in ${target}`,
  );
  return added;
}
