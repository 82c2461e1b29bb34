/**
 * The profile database's small state (issue 12 items 1 and 6; DESIGN.md "Storage"): the
 * sandbox's counterparties, keys, traces and settings, and the walkthrough's progress, in
 * `<data-dir>/console.db` beside the events. Whoever keeps such state (the sandbox in the
 * desktop app, in `serve`, or alone in `dets-console sandbox --data-dir`) acquires the same
 * handle for the same file: one read connection and one state writer per file per process,
 * counted, closed by the last release.
 *
 * Why the writes go to a writer thread and not through a second connection in the main thread:
 * a durable commit (`synchronous=FULL`) waits for an fsync, and when the event writer holds
 * WAL's single write lock, a main-thread connection would wait for it in busy_timeout, a sleep
 * that blocks the event loop answering callbacks (spec 4.2: 1 s budget). Onboarding needs no
 * authentication, so a flood of it must not stall the bank endpoints. On its own thread the
 * same wait costs the event loop nothing; the transactions stay tiny (a row or a few), so the
 * two writers' turns at the lock are short. Reads (loading the state at open) use the
 * main-thread connection: WAL readers never wait for a writer.
 */
import { ConsoleError } from '../../contract/errors';
import { GroupCommit } from './group-commit';
import { type Database, dbFile, openDatabase } from './db';
import { DEFAULT_RETENTION } from './sqlite-store';
import { SET_META_SQL } from './sql';
import { WriterClient } from './writer';
import type { Step } from './writer-protocol';

export type { Step } from './writer-protocol';

export interface ProfileDb {
  readonly file: string;
  /** A main-thread connection for reads; writes go through write(). */
  readonly db: Database;
  /** Commits `steps` in one durable transaction on the writer thread; all or nothing. */
  write(steps: Step[]): Promise<void>;
  /** Gives the handle back; the last release closes the connections. */
  release(): Promise<void>;
}

/** A step setting `meta.key` (a migration's "done" mark commits with the copy it marks). */
export function metaStep(key: string, value: string): Step {
  return [SET_META_SQL, [key, value]];
}

/** `meta.key`, or null. */
export function readMeta(db: Database, key: string): string | null {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key);
  return row ? String(row.value) : null;
}

interface Shared {
  db: Database;
  writer: WriterClient | null;
  /** The state writes of every holder, group-committed (group-commit.ts). */
  writes: GroupCommit<Step[], void>;
  users: number;
}

const shared = new Map<string, Shared>();

/**
 * The handle of `<dataDir>/console.db`, opening (creating, migrating) it when this process has
 * none yet.
 *
 * @example
 * const pdb = acquireProfileDb(dataDir);
 * await pdb.write([['DELETE FROM sandbox_counterparties WHERE guid = ?', [guid]]]);
 * await pdb.release();
 */
export function acquireProfileDb(dataDir: string): ProfileDb {
  const file = dbFile(dataDir);
  let s = shared.get(file);
  if (!s) {
    const created: Shared = {
      db: openDatabase(dataDir),
      writer: null,
      users: 0,
      writes: new GroupCommit<Step[], void>({
        commit: (groups) => commitGroups(created, file, groups),
        failure: (why) => new ConsoleError('INTERNAL', `Could not write to ${file}: ${why}`, { file }),
        // Every write is durable, so none waits for company: it goes now or with the next commit.
        coalesceMs: 0,
        coalesceMax: 1,
      }),
    };
    s = created;
    shared.set(file, s);
  }
  s.users += 1;
  const entry = s;
  let released = false;
  return {
    file,
    db: entry.db,
    async write(steps) {
      if (released) throw new ConsoleError('INTERNAL', `The handle of ${file} was already released.`);
      if (steps.length === 0) return;
      // Every write is durable: a group commit takes what waits, one fsync for all of them.
      await entry.writes.add([...steps], true);
    },
    async release() {
      if (released) return;
      released = true;
      entry.users -= 1;
      if (entry.users > 0) return;
      if (shared.get(file) === entry) shared.delete(file);
      await entry.writes.flush().catch(() => undefined);
      entry.writes.close();
      await entry.writer?.close();
      entry.db.close();
    },
  };
}

/**
 * One group commit of state writes on the file's writer thread (started if need be): each
 * write in its own savepoint, so one that fails (a constraint) is refused alone, with its
 * message; a commit that fails as a whole (disk full) fails every write in it.
 */
async function commitGroups(entry: Shared, file: string, groups: Step[][]): Promise<(void | Error)[]> {
  if (!entry.writer?.alive) entry.writer = new WriterClient(file, DEFAULT_RETENTION);
  const reply = await entry.writer.request({ type: 'execGroups', groups });
  if (!reply.ok) throw new Error(reply.message ?? 'the commit failed');
  const out: (void | Error)[] = groups.map(() => undefined);
  for (const f of reply.failed ?? [])
    out[f.index] = new ConsoleError('INTERNAL', `Could not write to ${file}: ${f.message}`, { file });
  return out;
}
