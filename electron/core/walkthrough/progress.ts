/**
 * The walkthrough's own small state, one row per environment in the profile database
 * (`<dataDir>/console.db`, table `walkthrough_progress`, issue 12). It holds only what no other
 * store keeps: the reset mark, the chosen obj/sub, the last composed bank JWT and session_token
 * report, the last rotation result, and the last action that failed before any event could say so. Everything else is derived from the
 * stores that record real events (keys, exchanges, the event store, the sandbox).
 *
 * Threat model: a record holds a bank JWT and a session_token (short-lived credentials the user
 * has already seen, as the exchange history does), never private key material or a customer's
 * secret key. Failure model: a record that cannot be parsed is reported (STATE_DAMAGED naming
 * the database and the environment) and left as it was; the walkthrough's reset (an explicit
 * "start over") replaces it, keeping the damaged text in `walkthrough_progress_damaged`.
 *
 * The old files (`<dataDir>/walkthrough/<env>.json`) are copied in once, in one transaction that
 * marks the migration done, and only then renamed aside (`.migrated-<ms>`); a file that does
 * not parse is copied as it is, so it is reported like a damaged row rather than dropped.
 *
 * A record written before `own` existed (the segment-log version and the first database
 * versions: its JSON has no `own` member) would prove nothing of steps 4, 6 and 7 under the rule
 * that only the walkthrough's own traffic counts (issue 24 item 7). Its `own` is rebuilt once,
 * at its first read or update, from what the old profile shows the walkthrough itself did
 * (legacy-own.ts), and written back; until every source could be read, the record stays as it
 * was and the rebuild is tried again at the next read.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import { InspectReport } from '../../contract/schemas/inspector';
import { Rotation } from '../../contract/schemas/service';
import { ComposedToken, RetryRehearsal, StepId } from '../../contract/schemas/walkthrough';
import { serializer } from '../common';
import { acquireProfileDb, metaStep, type ProfileDb, readMeta, type Step } from '../store';

const Attempt = z.object({
  at: z.string(),
  ok: z.boolean(),
  reason: z.string().nullable(),
  fix: z.string().nullable(),
});

/**
 * What the walkthrough's own actions sent (issue 13 item 4): the steps are proven by these, so
 * other traffic (a malformed POST from outside, a bad sign-in on the Sandbox page) shows beside
 * them but never reverts a green step. Each list keeps the newest OWN_KEEP entries.
 */
export const OWN_KEEP = 20;
const Own = z.object({
  /** Sign-ins run by step 6: the sandbox's trace and the /user_auth the bank recorded for it. */
  sign_ins: z
    .array(z.object({ at: z.string(), trace_id: z.string(), callback_id: z.string().nullable() }))
    .default([]),
  /** Notifications sent by step 7. */
  notifications: z
    .array(z.object({ at: z.string(), route: z.string(), transaction_id: z.string(), trace_id: z.string() }))
    .default([]),
  /** Exchanges with the service made by step 4 (authenticate). */
  exchange_ids: z.array(z.string()).default([]),
});
export type Own = z.infer<typeof Own>;

export const Progress = z.object({
  version: z.literal(1),
  environment_id: z.string(),
  reset_at: z.string().nullable().default(null),
  obj: z.string().nullable().default(null),
  sub: z.string().nullable().default(null),
  composed: ComposedToken.nullable().default(null),
  session: z
    .object({ exchange_id: z.string(), token: z.string(), report: InspectReport.nullable() })
    .nullable()
    .default(null),
  rotation: Rotation.nullable().default(null),
  attempts: z.partialRecord(StepId, Attempt).default({}),
  own: Own.default({ sign_ins: [], notifications: [], exchange_ids: [] }),
  /** Step 7's latest retry rehearsal (issue 27 item 5), null when none. */
  rehearsal: RetryRehearsal.nullable().default(null),
});
export type Progress = z.infer<typeof Progress>;

/** The lists of a record that proves nothing yet. */
const noOwn = (): Own => ({ sign_ins: [], notifications: [], exchange_ids: [] });

const blank = (environmentId: string): Progress => ({
  version: 1,
  environment_id: environmentId,
  reset_at: null,
  obj: null,
  sub: null,
  composed: null,
  session: null,
  rotation: null,
  attempts: {},
  own: noOwn(),
  rehearsal: null,
});

/** The name the old files had for an environment id (real ids are UUIDs; the rest made safe). */
function stem(environmentId: string): string {
  return environmentId.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'env';
}

export interface ProgressStoreOptions {
  /**
   * Rebuilds `own` for a record written before it existed (legacy-own.ts); rejects when a
   * source cannot be read (the record is then left as it was, to be tried again). Without it,
   * such a record's lists stay empty.
   */
  rebuildOwn?: (progress: Progress) => Promise<Own>;
}

export interface ProgressStore {
  /** The progress of an environment (blank when none); STATE_DAMAGED when its record is damaged. */
  read(environmentId: string): Promise<Progress>;
  /**
   * Read, change, write in one transaction; serialized within the process. A damaged record
   * fails the update, unless `replaceDamaged` (the reset): it is then kept aside and replaced.
   */
  update(
    environmentId: string,
    change: (p: Progress) => void,
    options?: { replaceDamaged?: boolean },
  ): Promise<Progress>;
  /** Gives the database handle back. */
  close(): Promise<void>;
}

const MIGRATED_KEY = 'walkthrough_progress_migrated_at';
const UPSERT = `INSERT INTO walkthrough_progress (environment_id, record) VALUES (?, ?)
  ON CONFLICT (environment_id) DO UPDATE SET record = excluded.record`;

/** Copies the old per-environment files in, once, then sets them aside (see the top). */
async function migrateFiles(pdb: ProfileDb, dir: string): Promise<void> {
  const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json'));
  if (names.length === 0) return;
  if (readMeta(pdb.db, MIGRATED_KEY) === null) {
    const steps: Step[] = [];
    for (const name of names) {
      const text = await fs.readFile(path.join(dir, name), 'utf8');
      let id = name.slice(0, -'.json'.length);
      try {
        id = Progress.parse(JSON.parse(text)).environment_id;
      } catch {
        // damaged: kept under its file's name, reported when that environment is read
      }
      steps.push([UPSERT, [id, text]]);
    }
    steps.push(metaStep(MIGRATED_KEY, new Date().toISOString()));
    await pdb.write(steps);
  }
  const at = Date.now();
  for (const name of names) await fs.rename(path.join(dir, name), path.join(dir, `${name}.migrated-${at}`));
}

/** Whether a stored record predates `own` (its JSON has no such member). */
function predatesOwn(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !('own' in value);
}

/**
 * The text stored for `progress`. An old record whose rebuild could not run yet keeps its
 * missing `own` (so the rebuild is tried again) unless the change itself added to it.
 */
function recordText(progress: Progress, stillOld: boolean): string {
  const { own } = progress;
  const empty = own.sign_ins.length + own.notifications.length + own.exchange_ids.length === 0;
  if (!stillOld || !empty) return JSON.stringify(progress);
  const { own: _dropped, ...rest } = progress;
  return JSON.stringify(rest);
}

export function createProgressStore(dataDir: string, storeOptions: ProgressStoreOptions = {}): ProgressStore {
  const exclusive = serializer();
  let opened: Promise<ProfileDb> | null = null;
  // Opened at first use: building the handlers opens nothing.
  const profile = () =>
    (opened ??= (async () => {
      const pdb = acquireProfileDb(dataDir);
      try {
        await migrateFiles(pdb, path.join(dataDir, 'walkthrough'));
        return pdb;
      } catch (err) {
        await pdb.release();
        throw err;
      }
    })().catch((err: unknown) => {
      opened = null;
      throw err;
    }));

  /** The stored record: parsed, or the text and why it is damaged, or null. */
  async function load(
    environmentId: string,
  ): Promise<
    { ok: true; progress: Progress; old: boolean } | { ok: false; text: string; why: string } | null
  > {
    const pdb = await profile();
    const row =
      pdb.db.prepare('SELECT record FROM walkthrough_progress WHERE environment_id = ?').get(environmentId) ??
      pdb.db
        .prepare('SELECT record FROM walkthrough_progress WHERE environment_id = ?')
        .get(stem(environmentId));
    if (!row) return null;
    const text = String(row.record);
    try {
      const value: unknown = JSON.parse(text);
      const parsed = Progress.parse(value);
      if (parsed.environment_id !== environmentId)
        throw new Error(`it names environment ${parsed.environment_id}`);
      return { ok: true, progress: parsed, old: predatesOwn(value) };
    } catch (err) {
      return { ok: false, text, why: err instanceof Error ? err.message.slice(0, 300) : String(err) };
    }
  }

  function damaged(environmentId: string, why: string, file: string): ConsoleError {
    return new ConsoleError(
      'STATE_DAMAGED',
      `The walkthrough progress of environment ${environmentId} in ${file} is damaged (${why}). It was left as it was; ` +
        'starting the walkthrough over (reset) replaces it and keeps the damaged record aside.',
      { file },
    );
  }

  /** An old record's `own`, rebuilt in place; false when a source could not be read. */
  async function rebuilt(progress: Progress): Promise<boolean> {
    if (!storeOptions.rebuildOwn) return false;
    try {
      progress.own = await storeOptions.rebuildOwn(progress);
      return true;
    } catch {
      return false;
    }
  }

  async function read(environmentId: string): Promise<Progress> {
    const found = await load(environmentId);
    if (!found) return blank(environmentId);
    if (!found.ok) throw damaged(environmentId, found.why, (await profile()).file);
    if (!found.old || !storeOptions.rebuildOwn) return found.progress;
    // Once (see the top): under the lock, so an update in between is not overwritten.
    return exclusive(async () => {
      const again = await load(environmentId);
      if (!again) return blank(environmentId);
      if (!again.ok) throw damaged(environmentId, again.why, (await profile()).file);
      if (again.old && (await rebuilt(again.progress)))
        await (await profile()).write([[UPSERT, [environmentId, JSON.stringify(again.progress)]]]);
      return again.progress;
    });
  }

  return {
    read,
    update: (environmentId, change, options) =>
      exclusive(async () => {
        const pdb = await profile();
        const found = await load(environmentId);
        const steps: Step[] = [];
        let progress = blank(environmentId);
        let stillOld = false;
        if (found?.ok) {
          progress = found.progress;
          stillOld = found.old && !(await rebuilt(progress));
        } else if (found && !options?.replaceDamaged) throw damaged(environmentId, found.why, pdb.file);
        else if (found) {
          steps.push([
            'INSERT INTO walkthrough_progress_damaged (environment_id, set_aside_at, record) VALUES (?, ?, ?)',
            [environmentId, new Date().toISOString(), found.text],
          ]);
          if (stem(environmentId) !== environmentId)
            steps.push(['DELETE FROM walkthrough_progress WHERE environment_id = ?', [stem(environmentId)]]);
        }
        change(progress);
        steps.push([UPSERT, [environmentId, recordText(progress, stillOld)]]);
        await pdb.write(steps);
        return progress;
      }),
    async close() {
      const pdb = await opened?.catch(() => null);
      opened = null;
      await pdb?.release();
    },
  };
}
