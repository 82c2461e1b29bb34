import { z } from 'zod';
import { JwksStatus } from './bank';
import { Check } from './inspector';

/**
 * The event store's records (issue 5). DESIGN.md fixes the minimum an external reader relies on
 * (`dets-console events --json`): every event has `id`, `at` (ISO 8601) and `kind`; a
 * notification adds `path`, `transaction_id` (when the body had one) and `outcome`; a callback
 * adds `path`, `status` (the HTTP status answered) and `failed_check` (null when it passed).
 */
/**
 * `route`: a team hub's routed request that the laptop did not answer in time (`route.late`) or
 * could not (`route.down`), so the hub answered itself (issue 30 item 3); its `path` says which.
 */
export const EventKind = z.enum(['notification', 'callback', 'exchange', 'trace', 'audit', 'route']);
export type EventKind = z.infer<typeof EventKind>;

export const NotificationOutcome = z.enum(['accepted', 'repeat', 'rejected']);

/**
 * What the console cut of an HTTP message to keep its event bounded (DESIGN.md "Storage": header
 * values past 1 KiB, header sections past 8 KiB and bodies past 64 KiB are cut, the original
 * sizes kept), with the sizes as received. Absent when nothing was cut.
 */
export const HttpCut = z.object({
  /** The whole header section as received, in bytes (`name: value` lines). */
  header_bytes: z.number().int().nonnegative().optional(),
  /** Headers left out because the section had reached 8 KiB. */
  headers_left_out: z.number().int().nonnegative().optional(),
  /** Header values cut at 1 KiB: the header's name → its value's size as received, in bytes. */
  values: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /** The body's size as received, in bytes, when it was cut at 64 KiB. */
  body_bytes: z.number().int().nonnegative().optional(),
});
export type HttpCut = z.infer<typeof HttpCut>;

export const HttpMessage = z.object({
  method: z.string().optional(),
  url: z.string().optional(),
  status: z.number().optional(),
  headers: z.record(z.string(), z.string()),
  /** Text as received or sent (cut past 64 KiB, see `cut`; secrets masked). */
  body: z.string().nullable(),
  /** Present when the stored message was cut: what, and the sizes as received. */
  cut: HttpCut.optional(),
});

/** What every list shows, and what queries filter on. */
export const EventSummary = z.object({
  id: z.string(),
  at: z.string(),
  kind: EventKind,
  path: z.string().nullable(),
  method: z.string().nullable(),
  /** HTTP status answered (callbacks, notifications) or received (exchanges). */
  status: z.number().nullable(),
  outcome: NotificationOutcome.nullable(),
  transaction_id: z.string().nullable(),
  failed_check: z.string().nullable(),
  obj: z.string().nullable(),
  sub: z.string().nullable(),
  duration_ms: z.number().nullable(),
  /** e.g. "sub not checked: no customer sub and no recently signed pair" */
  warning: z.string().nullable(),
  remote: z.string().nullable(),
});
export type EventSummary = z.infer<typeof EventSummary>;

/** The whole record, for the detail panel. */
export const EventDetail = EventSummary.extend({
  request: HttpMessage.nullable(),
  response: HttpMessage.nullable(),
  /** Callbacks: the X-Session-ID checks in DESIGN.md's order, first failure decisive. */
  checks: z.array(Check).nullable(),
  token: z
    .object({
      header: z.record(z.string(), z.unknown()).nullable(),
      payload: z.record(z.string(), z.unknown()).nullable(),
    })
    .nullable(),
  /**
   * Callbacks: the environment whose service published the kid the token names (issue 26;
   * DESIGN.md "Environments"); id null for a --service-jwks-url no environment has. Absent or
   * null when no JWKS held the kid, and in events stored before.
   */
  environment: z.object({ id: z.string().nullable(), name: z.string() }).nullable().optional(),
  /** The service JWKS as the check saw it: URL, kids, fetched_at, stale, keys left out, duplicate kids. */
  jwks: JwksStatus.extend({ url: z.string() }).nullable(),
  /** Forward mode: what the engineer's backend answered and how it was judged. */
  forward: z
    .object({
      url: z.string(),
      status: z.number().nullable(),
      duration_ms: z.number(),
      error: z.string().nullable(),
      verdicts: z.array(Check),
    })
    .nullable(),
  /** Free-form extra data for exchange and trace events (the Exchange or Trace record). */
  data: z.unknown().optional(),
});
export type EventDetail = z.infer<typeof EventDetail>;

export const EventQuery = z.object({
  kind: EventKind.optional(),
  path: z.string().max(200).optional(),
  outcome: NotificationOutcome.optional(),
  /** Only failed events (a check failed, or a callback answered an HTTP error), or those that failed this check. */
  failed: z.boolean().optional(),
  failed_check: z.string().max(100).optional(),
  /**
   * Only callbacks of this environment (its id, as environments.list gives it): those whose
   * token's kid its service published (issue 26; EventDetail `environment`).
   */
  environment: z.string().min(1).max(200).optional(),
  transaction_id: z.string().max(100).optional(),
  /** Case-insensitive substring over path, obj, sub, transaction_id, failed check and warning. */
  text: z.string().max(200).optional(),
  since: z.string().datetime({ offset: true }).optional(),
  until: z.string().datetime({ offset: true }).optional(),
  /**
   * Page backwards from this id (exclusive); newest first. Ids sort in append order (`e` + a
   * 12-digit sequence), so the last id of a page is the `before` of the next.
   */
  before: z.string().max(100).optional(),
  /**
   * Only events stored after this id (exclusive), in commit order: what a live list asks for to
   * catch up. Unlike `since`, it never misses an event committed after a newer one although it
   * arrived earlier (a notification waits for its commit; another process writes the profile).
   * `total` counts only these.
   */
  after: z.string().max(100).optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
});
export type EventQuery = z.infer<typeof EventQuery>;

export const EventPage = z.object({
  events: z.array(EventSummary),
  /** How many events match in all (not only this page: `before` and `limit` don't change it). */
  total: z.number().int(),
});

/** What events.stats counts: the filters of a query (no paging), grouped and/or bucketed in time. */
export const EventStatsQuery = z.object({
  query: EventQuery.omit({ before: true, limit: true }).optional(),
  /** Counts per value of this column among the matches (e.g. callbacks per failed check). */
  by: z.enum(['failed_check', 'outcome']).optional(),
  /**
   * Matches per time bucket: `buckets` whole buckets of `bucket_ms` aligned on the clock (a
   * per-second bucket is one wall-clock second), the last one ending at the start of the bucket
   * that holds `until` (default now), so every bucket shown is complete and its count is exact.
   */
  rate: z
    .object({
      bucket_ms: z.number().int().min(100).max(86_400_000),
      buckets: z.number().int().min(1).max(1_000),
      until: z.string().datetime({ offset: true }).optional(),
    })
    .optional(),
});
export type EventStatsQuery = z.infer<typeof EventStatsQuery>;

export const EventStats = z.object({
  /** How many events match (the store's count, not a page's). */
  total: z.number().int(),
  /** Per value of `by`, most frequent first; [] without `by`. */
  groups: z.array(z.object({ value: z.string().nullable(), count: z.number().int() })),
  /** Without `rate`: null. `start` is the first bucket's start (ISO 8601); counts oldest first. */
  rate: z
    .object({ start: z.string(), bucket_ms: z.number().int(), counts: z.array(z.number().int()) })
    .nullable(),
});
export type EventStats = z.infer<typeof EventStats>;

/**
 * The event store's health (issue 12), for the UI header: `failing` while writes fail (disk
 * full, I/O error: the requests concerned get 500, nothing is acknowledged) until a write
 * succeeds again; `damaged` when the database failed its integrity check at open.
 */
export const StoreHealth = z.object({
  state: z.enum(['ok', 'failing', 'damaged']),
  /** The database file. */
  file: z.string(),
  /** When the current state began (ISO 8601). */
  since: z.string(),
  /** What failed, in words; null when ok. */
  detail: z.string().nullable(),
  /** The database's size in bytes (pages in use and free), when known. */
  size_bytes: z.number().int().nonnegative().optional(),
  /**
   * Set when the database has grown past the warning size (1 GiB by default): acknowledged
   * notifications are kept by default, so the file only grows (issue 12 item 3).
   */
  size_warning: z.string().nullable().optional(),
});
export type StoreHealth = z.infer<typeof StoreHealth>;

/**
 * How long acknowledged notifications are kept (issue 12 item 3: "their retention is the user's
 * setting (default: keep)"): every one, those of the last `days` days, or the newest `count`.
 * Nothing else is ever removed to make room for them, nor they for anything else.
 */
export const NotificationRetention = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('keep') }).strict(),
  z.object({ mode: z.literal('days'), days: z.number().int().min(1).max(36_500) }).strict(),
  z.object({ mode: z.literal('last'), count: z.number().int().min(1).max(1_000_000_000) }).strict(),
]);
export type NotificationRetention = z.infer<typeof NotificationRetention>;

/** The retention in force, with what it governs and the database's size (the warning as it grows). */
export const NotificationRetentionState = z.object({
  rule: NotificationRetention,
  /** Acknowledged notifications stored now. */
  notifications: z.number().int().nonnegative(),
  size_bytes: z.number().int().nonnegative().nullable(),
  size_warning: z.string().nullable(),
});
export type NotificationRetentionState = z.infer<typeof NotificationRetentionState>;

/** A retention change: without `confirm`, only what it would remove is reported. */
export const NotificationRetentionChange = z.object({
  rule: NotificationRetention,
  confirm: z.boolean().default(false),
});

/** What a retention change removes (or would remove): how many, and their time span. */
export const RetentionRemoval = z.object({
  count: z.number().int().nonnegative(),
  oldest_at: z.string().nullable(),
  newest_at: z.string().nullable(),
});
export type RetentionRemoval = z.infer<typeof RetentionRemoval>;

export const NotificationRetentionResult = z.object({
  /** The rule in force after the call (the old one when not confirmed). */
  rule: NotificationRetention,
  /** Whether the rule was saved (only with confirm). */
  applied: z.boolean(),
  /** What the new rule removes now: removed when applied, else only reported. */
  removal: RetentionRemoval,
});
export type NotificationRetentionResult = z.infer<typeof NotificationRetentionResult>;
