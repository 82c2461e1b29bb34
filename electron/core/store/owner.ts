/**
 * Who has a profile's database open for writing: `<data-dir>/owners/<pid>.json`, one file per
 * process (a `serve`, the desktop app, a CLI command that records), written when the process
 * opens the event store and removed when it closes it. `store recover` reads them, because it
 * replaces `console.db` by renaming: a process still holding the old file would go on writing
 * into the copy set aside, and what it acknowledged after that would be lost from the profile.
 *
 * A process killed with -9 leaves its file behind; an owner whose pid is no longer alive is
 * not an owner (and its file is cleaned up by the next reader). One file per pid, so two
 * processes never overwrite each other's claim.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface ProfileOwner {
  pid: number;
  /** The host kind: "cli" (serve, a command), "desktop", "headless". */
  host: string;
  /** When the process opened the profile (ISO 8601). */
  since: string;
}

const OWNERS_DIR = 'owners';

function ownersDir(dataDir: string): string {
  return path.join(dataDir, OWNERS_DIR);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else; it still holds the file.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Records this process as an owner of the profile; the returned function removes the record.
 * A failure to write is not fatal (the profile is still usable), so it is swallowed: the cost is
 * only that `store recover` cannot warn about this process.
 */
export function claimProfile(dataDir: string, host: string): () => void {
  const file = path.join(ownersDir(dataDir), `${process.pid}.json`);
  const owner: ProfileOwner = { pid: process.pid, host, since: new Date().toISOString() };
  try {
    fs.mkdirSync(ownersDir(dataDir), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, JSON.stringify(owner), { mode: 0o600 });
  } catch {
    return () => undefined;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    fs.rmSync(file, { force: true });
  };
}

/** The live processes other than this one that have the profile open (stale records removed). */
export function otherOwners(dataDir: string): ProfileOwner[] {
  let names: string[];
  try {
    names = fs.readdirSync(ownersDir(dataDir));
  } catch {
    return [];
  }
  const owners: ProfileOwner[] = [];
  for (const name of names) {
    const match = /^(\d+)\.json$/.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid === process.pid) continue;
    const file = path.join(ownersDir(dataDir), name);
    if (!alive(pid)) {
      fs.rmSync(file, { force: true });
      continue;
    }
    let recorded: Partial<ProfileOwner> = {};
    try {
      recorded = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ProfileOwner>;
    } catch {
      // a record cut short: the pid (its name) is what matters
    }
    owners.push({
      pid,
      host: typeof recorded.host === 'string' ? recorded.host : 'unknown',
      since: typeof recorded.since === 'string' ? recorded.since : 'unknown',
    });
  }
  return owners;
}

/** "a cli process (pid 123, open since …)" for each owner, for an error message. */
export function describeOwners(owners: readonly ProfileOwner[]): string {
  return owners.map((o) => `a ${o.host} process (pid ${o.pid}, open since ${o.since})`).join(', ');
}
