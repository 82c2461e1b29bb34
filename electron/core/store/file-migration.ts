/**
 * The one-time copy of a history kept in a JSON Lines file into the profile database (issue 12
 * item 1: "it replaces ... the histories kept in files"), for the service exchange history and
 * the signed obj/sub pairs. The same promises as the event log's migration (legacy.ts):
 *
 * - Every readable line becomes a row; the rows and the "done" mark (`meta.<marker>`) commit in
 *   one transaction, so a crash leaves either nothing or everything copied, never half.
 * - Each insert is guarded by the mark inside that transaction, so two processes migrating the
 *   same profile at once (the CLI's `jwt sign` beside a running `serve`) copy it once.
 * - Only after the commit is the old file renamed aside (`<file>.migrated`); it is never
 *   deleted: the user removes it once satisfied.
 * - A line that cannot be read (a write cut short by a crash, a hand edit) is not copied and
 *   not dropped in silence: the result lists it by line number and the log says so, naming the
 *   file it remains in.
 */
import fs from 'node:fs';
import { metaStep, type ProfileDb, readMeta, type Step } from './profile-db';

export interface DamagedLine {
  /** 1-based line number in the old file. */
  line: number;
  why: string;
}

export interface FileMigration {
  /** Rows copied (0 when there was nothing to do). */
  migrated: number;
  damaged: DamagedLine[];
  /** Where the old file is now, or null when there was none. */
  keptAs: string | null;
}

export interface FileMigrationSpec {
  /** The old file. */
  file: string;
  /** The `meta` key marking this file as copied. */
  marker: string;
  /**
   * One line's insert (SQL with `?` parameters), or a reason it cannot be read. The SQL must
   * be an `INSERT INTO t (cols) SELECT ?, ?...` form: the guard against a second copy is
   * appended to it.
   */
  row(value: unknown): { sql: string; params: unknown[] } | { why: string };
  log: (line: string) => void;
}

export const MIGRATED_SUFFIX = '.migrated';

function setAside(file: string): string | null {
  let target = `${file}${MIGRATED_SUFFIX}`;
  if (fs.existsSync(target)) target = `${target}-${Date.now()}`;
  try {
    fs.renameSync(file, target);
    return target;
  } catch (err) {
    // Another process set it aside first.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Copies `spec.file` into the database once (see above); a no-op when it does not exist.
 *
 * @example
 * await migrateJsonLinesFile(pdb, {
 *   file, marker: 'migrated.signed_pairs', log,
 *   row: (v) => ({ sql: 'INSERT INTO t (a) SELECT ?', params: [v] }),
 * });
 */
export async function migrateJsonLinesFile(pdb: ProfileDb, spec: FileMigrationSpec): Promise<FileMigration> {
  const none: FileMigration = { migrated: 0, damaged: [], keptAs: null };
  let text: string;
  try {
    text = fs.readFileSync(spec.file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return none;
    throw err;
  }
  if (readMeta(pdb.db, spec.marker) !== null) {
    // Committed earlier; the rename did not happen (a crash right after the commit).
    return { ...none, keptAs: setAside(spec.file) };
  }
  const lines = text.split('\n');
  const steps: Step[] = [];
  const damaged: DamagedLine[] = [];
  const guard = ' WHERE NOT EXISTS (SELECT 1 FROM meta WHERE key = ?)';
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const last = i === lines.length - 1; // no newline after it: cut short
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      damaged.push({ line: i + 1, why: last ? 'cut short (no end of line)' : 'not JSON' });
      return;
    }
    const row = spec.row(value);
    if ('why' in row) damaged.push({ line: i + 1, why: row.why });
    else steps.push([row.sql + guard, [...row.params, spec.marker]]);
  });
  steps.push(metaStep(spec.marker, new Date().toISOString()));
  await pdb.write(steps);
  const keptAs = setAside(spec.file);
  const where = keptAs ?? spec.file;
  if (damaged.length > 0) {
    const list = damaged
      .slice(0, 10)
      .map((d) => `line ${d.line}: ${d.why}`)
      .join('; ');
    const more = damaged.length > 10 ? ` and ${damaged.length - 10} more` : '';
    spec.log(
      `${damaged.length} line(s) of ${spec.file} could not be read and were not copied into ${pdb.file} (${list}${more}); they remain in ${where}`,
    );
  }
  spec.log(
    `copied ${steps.length - 1} record(s) from ${spec.file} into ${pdb.file}; the old file is kept as ${where}`,
  );
  return { migrated: steps.length - 1, damaged, keptAs };
}

/** The log of a migration when its caller gives none: one line on stderr (not stdout: `--json`). */
export function defaultLog(line: string): void {
  console.error(line);
}
