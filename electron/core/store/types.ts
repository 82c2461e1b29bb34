import type {
  EventDetail,
  EventQuery,
  EventStats,
  EventStatsQuery,
  EventSummary,
  StoreHealth,
} from '../../contract/schemas/events';
import type { EventHub } from '../event-hub';
import type { RetentionClass } from './records';

/** An event as a producer hands it to the store: everything but the id, which the store gives. */
export type NewEvent = Omit<EventDetail, 'id'>;

/**
 * The event store (issues 5 and 12): every request to the bank endpoints, every service exchange
 * and every sandbox trace becomes an event in the profile database (`<data-dir>/console.db`,
 * DESIGN.md "Storage"). A notification's append resolves only once the transaction holding it
 * is committed (group commit across concurrent appends), so a crash or `kill -9` loses nothing
 * that was acknowledged. Retention is per class (records.ts): nothing else ever makes room by
 * removing an acknowledged notification.
 */
/** What a reader of events needs: queries and whole events (the export, the rebuilt callbacks). */
export type EventReader = Pick<EventStore, 'query' | 'get' | 'scan'>;

/** How {@link EventStore.append} stores an event. */
export interface AppendOptions {
  durable?: boolean;
  repeatCheck?: boolean;
}

export interface EventStore {
  /**
   * Appends an event and returns its summary (with the id). With `durable`, resolves only once
   * the transaction holding it is committed with `synchronous=FULL` (possibly together with
   * others: group commit); rejects when it could not be (the event is then not stored).
   * With `repeatCheck`, an accepted notification is stored as a `repeat` when an accepted one
   * with the same transaction_id (any letter case) is already stored: decided inside the
   * transaction that stores it, so no other writer of the profile can slip one in between; the
   * summary says which it became.
   */
  append(event: NewEvent, options?: AppendOptions): Promise<EventSummary>;
  /** Newest first, filtered; `total` counts every match. */
  query(query: EventQuery): Promise<{ events: EventSummary[]; total: number }>;
  /** Counts over the matches of a query's filters: total, per column value, per time bucket. */
  stats(query: EventStatsQuery): Promise<EventStats>;
  /** The whole record; NOT_FOUND naming the id. */
  get(id: string): Promise<EventDetail>;
  /**
   * Every stored event, oldest first (for `dets-console events`); `afterId` starts past that id
   * (for `--follow`). Unreadable (damaged) rows are skipped and reported through health().
   */
  scan(filter?: ScanFilter): AsyncIterable<EventDetail>;
  /**
   * Whether an event already carries this transaction_id, compared case-insensitively (DESIGN.md
   * "Bank endpoints"), across restarts; counts events appended but not yet committed too.
   */
  hasTransaction(transactionId: string): boolean;
  /** Makes everything appended so far durable. */
  flush(): Promise<void>;
  /** Whether writes succeed and the database is sound (`store.changed` on change). */
  health(): StoreHealth;
  /**
   * The result of `PRAGMA quick_check` run at open on its own thread: [] when sound, else the
   * problems (the health turns `damaged` and names the file).
   */
  integrity(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * What scan() walks: a kind, a time, a text (as query() filters), where to start (past
 * `afterId`), and `last`: only the newest N of the matches (still oldest first).
 */
export type ScanFilter = Pick<EventQuery, 'kind' | 'since' | 'text' | 'environment'> & {
  afterId?: string;
  last?: number;
};

/** Per retention class (records.ts), how many events are kept; null keeps every one. */
export type Retention = Partial<Record<RetentionClass, number | null>>;

export interface EventStoreOptions {
  dataDir: string;
  /** Emits `events.appended` with each new summary, `store.changed` on a change. */
  events: EventHub;
  /**
   * Caps per class; defaults in sqlite-store.ts. `ack` (acknowledged notifications) is the
   * user's setting and defaults to null: keep every one.
   */
  retention?: Retention;
  /**
   * A second opener beside a running writer (e.g. `dets-console events` while `serve` runs):
   * creates nothing, migrates nothing, and refuses appends.
   */
  readOnly?: boolean;
  /** A record's cap once serialized (default 256 KiB): bodies past it are cut with a marker. */
  maxRecordBytes?: number;
  /** Progress of the one-time migration of an old segment-log profile (legacy.ts). */
  onMigrationProgress?: (progress: { events: number; bytesDone: number; bytesTotal: number }) => void;
  /** health() carries a size_warning past this many bytes (default 1 GiB). */
  sizeWarningBytes?: number;
  /** Where failures and recoveries are logged, one line each (default: console.error). */
  log?: (line: string) => void;
  now?: () => number;
}

/**
 * An event of `kind` with every optional field empty, for producers to fill in.
 *
 * @example
 * const e = { ...blankEvent('callback', at), path: '/user_auth', status: 200 };
 */
export function blankEvent(kind: NewEvent['kind'], at: string): NewEvent {
  return {
    at,
    kind,
    path: null,
    method: null,
    status: null,
    outcome: null,
    transaction_id: null,
    failed_check: null,
    obj: null,
    sub: null,
    duration_ms: null,
    warning: null,
    remote: null,
    request: null,
    response: null,
    checks: null,
    token: null,
    jwks: null,
    forward: null,
    // Issue 26: the environment whose service published a callback's kid (bank/recording.ts).
    environment: null,
  };
}
