/**
 * One owner per profile (DESIGN.md "Storage", issue 24 item 5): the desktop app, `serve` and
 * `sandbox` claim the profile before they open its database, and a second one refuses, naming
 * the first; `store recover` claims it exclusively for as long as it runs, refusing while an
 * owner runs, and an owner started during a recovery waits for it (saying so) before it opens
 * anything. One-shot commands (`events`, `keys`, `jwt`) claim nothing; those that write the
 * database (`jwt sign` records the pairs it signed) hold it against a recovery instead (below).
 *
 * Why an fcntl lock taken through SQLite, and not a pid file: the claim must be race-free (two
 * processes starting at once: exactly one wins) and must not outlive a process killed with -9.
 * An O_EXCL pid file is race-free to create, but a dead owner's file has to be broken, and
 * "read it, see the pid dead, remove it" races with a second breaker (one removes the file the
 * other just created). A kernel lock has neither problem: it is granted to one process, and the
 * kernel drops it when the process dies, however it dies. Node has no flock/fcntl of its own,
 * but the SQLite binding the store already loads (libsql, SQLite 3.45) takes POSIX advisory
 * locks on Unix (LockFileEx on Windows): a connection to `<data-dir>/owner.lock` in
 * `locking_mode=EXCLUSIVE` that has run `BEGIN EXCLUSIVE` keeps the file's exclusive lock until it
 * closes, and any other connection (another process, or another connection in this one) gets
 * SQLITE_BUSY at once. The lock file holds no data; a locked database cannot be read, so who
 * holds it is written beside it, in `owner.json`, by the holder once it has the lock.
 *
 * Threat model: a cooperating set of DETS Console processes on one machine. Advisory locks are
 * not honoured across hosts on every network file system; the profile is a local folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ConsoleError } from '../../contract/errors';
import type { Database } from './db';

/** Who claims a profile: the long-running owners, and the recovery. */
export type ClaimRole = 'desktop app' | 'serve' | 'sandbox' | 'store recover';

/** What `owner.json` says of the process holding the claim. */
export interface ProfileOwner {
  pid: number;
  role: ClaimRole;
  /** The machine's name (os.hostname()). */
  hostname: string;
  /** When the claim was taken (ISO 8601). */
  since: string;
}

/** A claim held by this process; release() lets it go (idempotent). */
export interface ProfileClaim {
  readonly owner: ProfileOwner;
  release(): void;
}

export interface ClaimOptions {
  /**
   * Told once when an owner has to wait for a running `store recover` (the hosts print
   * "waiting for store recover (pid N) to finish…").
   */
  onWait?: (holder: ProfileOwner | null) => void;
  /** How often a waiting owner tries again (ms). */
  pollMs?: number;
  /** Stops a wait (a host being stopped while it waits). */
  signal?: AbortSignal;
}

export const LOCK_FILE = 'owner.lock';
export const OWNER_FILE = 'owner.json';

const require = createRequire(import.meta.url);
type Ctor = new (file: string) => Database;

/** Opens the lock file and tries to take its exclusive lock once; the connection, or null. */
function tryLock(file: string): Database | null {
  const db = new (require('libsql') as Ctor)(file);
  try {
    // exec() only: a statement left unfinalized (pragma() makes one) would keep the connection,
    // and so the lock, alive past close() until it is garbage-collected. No journal: nothing is
    // ever written. In EXCLUSIVE locking mode the lock outlives the transaction.
    db.exec(
      'PRAGMA busy_timeout = 0; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = OFF; BEGIN EXCLUSIVE; COMMIT',
    );
    return db;
  } catch (err) {
    db.close();
    if ((err as { code?: unknown }).code === 'SQLITE_BUSY') return null;
    throw err;
  }
}

/** owner.json as written, or null when it is missing or unreadable. */
export function readOwner(dataDir: string): ProfileOwner | null {
  try {
    const o = JSON.parse(fs.readFileSync(path.join(dataDir, OWNER_FILE), 'utf8')) as Partial<ProfileOwner>;
    if (typeof o.pid !== 'number' || typeof o.role !== 'string') return null;
    return {
      pid: o.pid,
      role: o.role,
      hostname: typeof o.hostname === 'string' ? o.hostname : 'unknown',
      since: typeof o.since === 'string' ? o.since : 'unknown',
    };
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Who holds the lock: owner.json, unless it names a process that is gone (a holder that has just
 * taken the lock writes it a moment later; the previous holder's record may still be there).
 * Tries for up to `waitMs`; null when it cannot tell.
 */
async function holderOf(dataDir: string, waitMs = 1000): Promise<ProfileOwner | null> {
  const until = Date.now() + waitMs;
  for (;;) {
    const o = readOwner(dataDir);
    if (o && alive(o.pid)) return o;
    if (Date.now() >= until) return null;
    await sleep(50);
  }
}

/** "serve (pid 123 on host h, since …)", or words for an unknown holder. */
export function describeOwner(o: ProfileOwner | null): string {
  return o === null
    ? 'another process (its pid is not recorded)'
    : `${o.role} (pid ${o.pid} on host ${o.hostname}, since ${o.since})`;
}

/** The one-line refusal of a claim the profile's holder keeps. */
function refusal(dataDir: string, role: ClaimRole, holder: ProfileOwner | null): ConsoleError {
  const who = describeOwner(holder);
  const message =
    role === 'store recover'
      ? `the profile ${dataDir} is in use by ${who}: stop it first (a recovery replaces the database, and what that process wrote after it would be lost). Nothing was changed.`
      : `the profile ${dataDir} is already in use by ${who}; one long-running process owns a profile at a time (stop it, or use another --data-dir).`;
  return new ConsoleError('CONFLICT', message, { dataDir, holder });
}

/**
 * Claims the profile in `dataDir` for `role`. Refuses (CONFLICT, naming the holder's pid and
 * host) when another process holds it, except that an owner finding a `store recover` waits for
 * it to finish (telling `onWait` once) and then claims.
 *
 * @example
 * const claim = await claimProfile(dataDir, 'serve', { onWait: (r) => log(`waiting for store recover (pid ${r?.pid})…`) });
 * try { ... } finally { claim.release(); }
 */
export async function claimProfile(
  dataDir: string,
  role: ClaimRole,
  options: ClaimOptions = {},
): Promise<ProfileClaim> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lockFile = path.join(dataDir, LOCK_FILE);
  let told = false;
  for (;;) {
    const db = tryLock(lockFile);
    if (db) return held(dataDir, role, db);
    const holder = await holderOf(dataDir);
    // The holder let go while its record was read: try again at once.
    if (holder === null && !isLocked(lockFile)) continue;
    if (role === 'store recover' || holder?.role !== 'store recover') throw refusal(dataDir, role, holder);
    if (!told) options.onWait?.(holder);
    told = true;
    if (options.signal?.aborted)
      throw new ConsoleError('CONFLICT', `stopped while waiting for ${describeOwner(holder)} to finish`);
    await sleep(options.pollMs ?? 100);
  }
}

/** Whether another connection holds the lock right now. */
function isLocked(lockFile: string): boolean {
  const db = tryLock(lockFile);
  if (db === null) return true;
  db.close();
  return false;
}

function held(dataDir: string, role: ClaimRole, db: Database): ProfileClaim {
  const owner: ProfileOwner = {
    pid: process.pid,
    role,
    hostname: os.hostname(),
    since: new Date().toISOString(),
  };
  const file = path.join(dataDir, OWNER_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    // Written whole or not at all (a reader never sees half a record).
    fs.writeFileSync(tmp, `${JSON.stringify(owner)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    // A full disk: the lock alone still keeps the profile to this process; a refused second
    // owner just cannot name it.
    fs.rmSync(tmp, { force: true });
  }
  let released = false;
  return {
    owner,
    release() {
      if (released) return;
      released = true;
      // The record goes first, while the lock still keeps others from writing theirs.
      const now = readOwner(dataDir);
      if (now?.pid === owner.pid && now.since === owner.since) fs.rmSync(file, { force: true });
      db.close();
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ------------------------------------------------------------------ one-shot writers

/**
 * `<data-dir>/recovery.lock`: held exclusively by a running recovery (a `store recover`, or an
 * owner running the recovery asked for from the UI under its own claim), and shared by each
 * one-shot command while it writes the database. Why a second lock: a one-shot runs beside an
 * owner, which holds owner.lock, so it cannot take that one; and seeing "no recovery" once before
 * writing is not enough, as a recovery could start between the look and the write and set the
 * file aside with the write in it (DESIGN.md "Storage": nothing acknowledged may end up outside
 * the live database). SQLite's own locks make it a readers-writer lock across processes: an open
 * read transaction keeps a SHARED lock, which any number of connections hold at once, and an
 * EXCLUSIVE one is granted only when no SHARED is held, and refuses new ones while held.
 */
export const RECOVERY_LOCK = 'recovery.lock';

/** A hold on `recovery.lock` (shared by a one-shot writer, exclusive for a recovery); release() is idempotent. */
export interface DatabaseHold {
  release(): void;
}

/** Takes the shared lock once: the connection (its read transaction left open), or null when a recovery holds it. */
function tryShared(file: string): Database | null {
  const db = new (require('libsql') as Ctor)(file);
  try {
    db.exec('PRAGMA busy_timeout = 0; BEGIN; SELECT count(*) FROM sqlite_master');
    return db;
  } catch (err) {
    db.close();
    if ((err as { code?: unknown }).code === 'SQLITE_BUSY') return null;
    throw err;
  }
}

function holding(db: Database): DatabaseHold {
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      db.close();
    },
  };
}

/** Polls `take` until it holds, telling `onWait` once; stops when `signal` aborts. */
async function until(
  take: () => Database | null,
  options: { onWait?: () => void; pollMs?: number; signal?: AbortSignal; stopped: () => string },
): Promise<DatabaseHold> {
  let told = false;
  for (;;) {
    const db = take();
    if (db) return holding(db);
    if (!told) options.onWait?.();
    told = true;
    if (options.signal?.aborted) throw new ConsoleError('CONFLICT', options.stopped());
    await sleep(options.pollMs ?? 100);
  }
}

/**
 * Holds the profile's database for a one-shot command that writes it, from before it opens the
 * database to after it closes it: a recovery started meanwhile waits for it, and while one runs,
 * this waits for it to finish, telling `onWait` once who runs it (owner.json: `store recover`, or
 * the owner running the recovery asked for from the UI).
 *
 * @example
 * const hold = await holdForOneShotWrite(dataDir, { onWait: (r) => stderr(recoveryWaitLine(r)) });
 * try { ... } finally { hold.release(); }
 */
export async function holdForOneShotWrite(
  dataDir: string,
  options: ClaimOptions = {},
): Promise<DatabaseHold> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, RECOVERY_LOCK);
  let holder: ProfileOwner | null = null;
  return until(() => tryShared(file), {
    ...options,
    onWait: () => {
      holder = readOwner(dataDir);
      options.onWait?.(holder);
    },
    stopped: () => `stopped while waiting for the recovery by ${describeOwner(holder)} to finish`,
  });
}

/**
 * Keeps the one-shot writers off the profile's database for as long as a recovery runs: waits
 * for those writing now to finish (telling `onWait` once), then holds until released.
 */
export function fenceOneShotWriters(
  dataDir: string,
  options: { onWait?: () => void; pollMs?: number; signal?: AbortSignal } = {},
): Promise<DatabaseHold> {
  const file = path.join(dataDir, RECOVERY_LOCK);
  return until(() => tryLock(file), {
    ...options,
    stopped: () => 'stopped while waiting for one-shot commands',
  });
}

/** What a one-shot writer says while a recovery runs: "waiting for store recover (pid 123) to finish…". */
export function recoveryWaitLine(holder: ProfileOwner | null): string {
  const who =
    holder === null
      ? 'a recovery of the profile'
      : holder.role === 'store recover'
        ? `store recover (pid ${holder.pid})`
        : `the recovery run by ${holder.role} (pid ${holder.pid})`;
  return `waiting for ${who} to finish…`;
}
