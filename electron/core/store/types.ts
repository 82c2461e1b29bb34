import type { EventDetail, EventQuery, EventSummary } from '../../contract/schemas/events';
import type { EventHub } from '../event-hub';

/** An event as a producer hands it to the store: everything but the id, which the store gives. */
export type NewEvent = Omit<EventDetail, 'id'>;

/**
 * The event store (issue 5): append-only and durable. Every request to the bank endpoints,
 * every service exchange and every sandbox trace becomes an event; a notification is on disk
 * (fsync'd; group commit allowed) before its 200 is sent, so a crash or `kill -9` loses nothing
 * that was acknowledged. A retention cap trims the oldest. Queries stay fast at a million events.
 */
export interface EventStore {
  /**
   * Appends an event and returns its summary (with the id). With `durable`, resolves only once
   * the event is on disk (fsync'd, possibly together with others: group commit).
   */
  append(event: NewEvent, options?: { durable?: boolean }): Promise<EventSummary>;
  /** Newest first, filtered; `total` counts every match. */
  query(query: EventQuery): Promise<{ events: EventSummary[]; total: number }>;
  /** The whole record; NOT_FOUND naming the id. */
  get(id: string): Promise<EventDetail>;
  /** Every stored event, oldest first (for `dets-console events`). */
  scan(filter?: Pick<EventQuery, 'kind'>): AsyncIterable<EventDetail>;
  /**
   * Whether a live (not trimmed) event already carries this transaction_id, so the bank
   * endpoints can mark a repeated notification as `repeat` without a query. Counts events
   * appended but not yet durable too.
   */
  hasTransaction(transactionId: string): boolean;
  /** Makes everything appended so far durable. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface EventStoreOptions {
  dataDir: string;
  /** Emits `events.appended` with each new summary. */
  events: EventHub;
  /** Oldest events beyond either cap are trimmed. Defaults: 1,000,000 events, 2 GiB. */
  retention?: { maxEvents?: number; maxBytes?: number };
  /** A segment file rolls over past this size (default 64 MiB; tests use small values). */
  segmentBytes?: number;
  /**
   * A second opener beside a running writer (e.g. `dets-console events` while `serve` runs):
   * creates nothing, leaves a half-written tail alone (skips it), deletes nothing, and refuses
   * appends.
   */
  readOnly?: boolean;
  /** A record's cap once serialized (default 256 KiB): bodies past it are cut with a marker. */
  maxRecordBytes?: number;
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
  };
}
