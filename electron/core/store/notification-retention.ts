/**
 * The retention of acknowledged notifications, the user's setting (issue 12 item 3: "their
 * retention is the user's setting (default: keep), with a warning as the database grows").
 *
 * - The rule (keep / the last N days / the newest N) is `meta.notification_retention` in the
 *   profile database, so it holds for the desktop app, `serve` and the CLI alike and survives a
 *   restart. A stored value this console cannot read counts as `keep`: a damaged setting never
 *   removes anything.
 * - It governs the `ack` retention class only (records.ts): accepted and repeated
 *   notifications. Rejected ones, callbacks, exchanges, traces and refused requests keep their
 *   own caps; no rule here ever touches them.
 * - A change removes nothing until it is confirmed: unconfirmed, it reports what it would
 *   remove (how many, from when to when) and saves nothing. Confirmed, the rule and the first
 *   trim are applied; the console applies the rule again at open and periodically, so `last N`
 *   and `N days` keep holding as notifications arrive.
 * - Trims go through the state writer (profile-db.ts) in chunks of CHUNK rows, each its own
 *   short transaction, so a large first trim never holds the write lock long enough to make a
 *   notification's commit wait (spec 4.3: its 200 waits on that commit).
 */
import {
  NotificationRetention,
  NotificationRetentionChange,
  type NotificationRetentionResult,
  type RetentionRemoval,
} from '../../contract/schemas/events';
import { invalidArgument } from '../common';
import type { Database } from './db';
import { acquireProfileDb, metaStep, type ProfileDb, readMeta, type Step } from './profile-db';

export const RETENTION_META_KEY = 'notification_retention';
export const KEEP: NotificationRetention = { mode: 'keep' };
/** Rows removed per transaction. */
const CHUNK = 5000;
const DAY_MS = 24 * 3600 * 1000;

/** The rule stored in `db`; `keep` when none is, or when what is stored cannot be read. */
export function readRetention(db: Database): NotificationRetention {
  const text = readMeta(db, RETENTION_META_KEY);
  if (text === null) return KEEP;
  try {
    const parsed = NotificationRetention.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : KEEP;
  } catch {
    return KEEP;
  }
}

/**
 * The acknowledged notifications `rule` does not keep at `nowMs`, as SQL over `events`; null
 * for `keep`.
 */
function removedBy(rule: NotificationRetention, nowMs: number): { sql: string; params: unknown[] } | null {
  if (rule.mode === 'days')
    return { sql: "class = 'ack' AND at_ms < ?", params: [nowMs - rule.days * DAY_MS] };
  if (rule.mode === 'last')
    return {
      // The (count+1)-th newest and all older: nothing when there are no more than count.
      sql: "class = 'ack' AND seq <= (SELECT seq FROM events WHERE class = 'ack' ORDER BY seq DESC LIMIT 1 OFFSET ?)",
      params: [rule.count],
    };
  return null;
}

/** What `rule` would remove now, without removing it. */
export function plannedRemoval(db: Database, rule: NotificationRetention, nowMs: number): RetentionRemoval {
  const where = removedBy(rule, nowMs);
  if (!where) return { count: 0, oldest_at: null, newest_at: null };
  const r = db
    .prepare(`SELECT count(*) AS n, min(at) AS oldest, max(at) AS newest FROM events WHERE ${where.sql}`)
    .get(...where.params);
  const n = Number(r?.n ?? 0);
  return {
    count: n,
    oldest_at: n > 0 ? String(r?.oldest) : null,
    newest_at: n > 0 ? String(r?.newest) : null,
  };
}

/** One chunk of the trim: the counters of the class (retention's bookkeeping), then the rows. */
function trimChunk(rule: NotificationRetention, nowMs: number): Step[] {
  const where = removedBy(rule, nowMs);
  if (!where) return [];
  const chunk = `SELECT seq FROM events WHERE ${where.sql} ORDER BY seq LIMIT ${CHUNK}`;
  const of = (agg: string) => `(SELECT ${agg} FROM events WHERE seq IN (${chunk}))`;
  return [
    [
      `UPDATE class_stats SET count = count - ${of('count(*)')}, bytes = bytes - ${of('coalesce(sum(size), 0)')},
         trimmed = trimmed + ${of('count(*)')} WHERE class = 'ack'`,
      [...where.params, ...where.params, ...where.params],
    ],
    [`DELETE FROM events WHERE seq IN (${chunk})`, where.params],
  ];
}

/** Checks a change as it comes from any caller; BAD_ARGUMENT naming the field when it is wrong. */
export function parseRetentionChange(input: unknown): { rule: NotificationRetention; confirm: boolean } {
  const parsed = NotificationRetentionChange.safeParse(input);
  if (!parsed.success) throw invalidArgument(parsed.error, 'notification retention');
  return parsed.data;
}

export interface NotificationRetentionService {
  /** The rule in force and how many acknowledged notifications are stored. */
  get(): { rule: NotificationRetention; notifications: number };
  /** Reports (unconfirmed) or applies (confirmed) a new rule. */
  set(input: unknown): Promise<NotificationRetentionResult>;
  /** Applies the rule in force; returns how many notifications it removed. */
  apply(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The retention setting of a profile.
 *
 * @example
 * const retention = createNotificationRetention({ dataDir });
 * await retention.set({ rule: { mode: 'days', days: 90 } }); // { applied: false, removal: {count: 12, …} }
 * await retention.set({ rule: { mode: 'days', days: 90 }, confirm: true });
 */
export function createNotificationRetention(options: {
  dataDir: string;
  now?: () => number;
  log?: (line: string) => void;
}): NotificationRetentionService {
  const now = options.now ?? Date.now;
  let pdb: ProfileDb | null = null;
  const handle = () => (pdb ??= acquireProfileDb(options.dataDir));
  /** One trim at a time: a periodic one and a confirmed change never interleave their chunks. */
  let running: Promise<unknown> = Promise.resolve();

  async function trim(rule: NotificationRetention): Promise<number> {
    const p = handle();
    const at = now();
    const planned = plannedRemoval(p.db, rule, at).count;
    // Bounded: the chunks the plan needs, and one more for notifications that arrived meanwhile.
    for (let i = 0; i <= Math.ceil(planned / CHUNK); i++) {
      if (plannedRemoval(p.db, rule, at).count === 0) break;
      await p.write(trimChunk(rule, at));
    }
    if (planned > 0)
      (options.log ?? ((l: string) => console.error(l)))(
        `event store: notification retention (${describeRetention(rule)}) removed ${planned} acknowledged notification(s)`,
      );
    return planned;
  }

  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = running.then(fn, fn);
    running = next.catch(() => undefined);
    return next;
  };

  return {
    get() {
      const db = handle().db;
      const n = db.prepare("SELECT count FROM class_stats WHERE class = 'ack'").get();
      return { rule: readRetention(db), notifications: Math.max(0, Number(n?.count ?? 0)) };
    },
    async set(input) {
      const change = parseRetentionChange(input);
      return serial(async () => {
        const p = handle();
        const removal = plannedRemoval(p.db, change.rule, now());
        if (!change.confirm) return { rule: readRetention(p.db), applied: false, removal };
        await p.write([metaStep(RETENTION_META_KEY, JSON.stringify(change.rule))]);
        await trim(change.rule);
        return { rule: change.rule, applied: true, removal };
      });
    },
    apply() {
      return serial(() => trim(readRetention(handle().db)));
    },
    async close() {
      await running;
      await pdb?.release();
      pdb = null;
    },
  };
}

/** The rule in words, for the log and the size warning. */
export function describeRetention(rule: NotificationRetention): string {
  if (rule.mode === 'days') return `keep the last ${rule.days} day(s)`;
  if (rule.mode === 'last') return `keep the newest ${rule.count}`;
  return 'keep every one';
}
