/**
 * What both stores (SQLite, sqlite-store.ts; PostgreSQL, pg-store.ts) make of an append before
 * it is queued: the kind checked, the time defaulted, the row built (records.ts toRow) with the
 * pending id, and whether its repeat is decided at commit. One place, so the two stores take
 * the same events the same way (issue 30 item 4: "the same semantics").
 */
import { badArgument, ConsoleError } from '../../contract/errors';
import type { EventDetail, EventSummary } from '../../contract/schemas/events';
import { EVENT_KINDS, type EventRow, formatEventId, PENDING_ID, ROW, toRow } from './records';
import type { AppendOptions, NewEvent } from './types';

/** An append ready for a commit queue. */
export interface PreparedAppend {
  row: EventRow;
  summary: EventSummary;
  durable: boolean;
  repeatCheck: boolean;
}

/**
 * The row of `event`, or a BAD_ARGUMENT naming what is wrong.
 *
 * @example
 * const { row, summary, durable, repeatCheck } = prepareAppend(event, { durable: true }, 262144, Date.now);
 */
export function prepareAppend(
  event: NewEvent,
  options: AppendOptions | undefined,
  maxRecordBytes: number,
  now: () => number,
): PreparedAppend {
  if (!EVENT_KINDS.includes(event.kind))
    throw badArgument(`kind: ${String(event.kind)} is not an event kind`, 'kind');
  const at =
    typeof event.at === 'string' && !Number.isNaN(Date.parse(event.at))
      ? event.at
      : new Date(now()).toISOString();
  const record = { id: '', ...event, at } as EventDetail;
  // The first key, and never a producer's: the store gives the id at commit (writer-commit.ts,
  // pg-commit.ts), so two processes writing to one store never collide.
  record.id = PENDING_ID;
  let built: ReturnType<typeof toRow>;
  try {
    built = toRow(record, 0, maxRecordBytes);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw badArgument(`The event cannot be stored as JSON: ${why}`, 'event');
  }
  const { row, summary } = built;
  const repeatCheck =
    options?.repeatCheck === true &&
    event.kind === 'notification' &&
    event.outcome === 'accepted' &&
    row[ROW.tx_lower] !== null;
  return { row, summary, durable: options?.durable === true, repeatCheck };
}

/**
 * An append as both stores take it (sqlite-store.ts, pg-store.ts): refused as a rejection when
 * the store cannot take it (`refusal`, e.g. closed), the row prepared (a bad event rejects,
 * naming the field), then handed to the store's queue.
 *
 * @example
 * return appendThrough(this.closed ? 'The event store is closed.' : null, event, options, limits, (p) => queue.add(p.row, p.summary, p));
 */
export function appendThrough(
  refusal: string | null,
  event: NewEvent,
  options: AppendOptions | undefined,
  limits: { maxRecordBytes: number; now?: () => number },
  add: (prepared: PreparedAppend) => Promise<EventSummary>,
): Promise<EventSummary> {
  if (refusal !== null) return Promise.reject(new ConsoleError('INTERNAL', refusal));
  let prepared: PreparedAppend;
  try {
    prepared = prepareAppend(event, options, limits.maxRecordBytes, limits.now ?? Date.now);
  } catch (err) {
    return Promise.reject(err);
  }
  return add(prepared);
}

/** The summary columns both stores select for lists. */
export const SUMMARY_COLUMNS =
  'seq, at, kind, path, method, status, outcome, transaction_id, failed_check, obj, sub, duration_ms, warning, remote';

/** A selected row of SUMMARY_COLUMNS as a summary (either store's driver types). */
export function summaryOfRow(r: Record<string, unknown>): EventSummary {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    id: formatEventId(Number(r.seq)),
    at: String(r.at),
    kind: r.kind as EventSummary['kind'],
    path: text(r.path),
    method: text(r.method),
    status: num(r.status),
    outcome: text(r.outcome) as EventSummary['outcome'],
    transaction_id: text(r.transaction_id),
    failed_check: text(r.failed_check),
    obj: text(r.obj),
    sub: text(r.sub),
    duration_ms: num(r.duration_ms),
    warning: text(r.warning),
    remote: text(r.remote),
  };
}

/** Lower-cased transaction_ids appended and not yet committed, counted (hasTransaction). */
export class UncommittedTx {
  private readonly counts = new Map<string, number>();

  add(row: EventRow): void {
    const tx = row[ROW.tx_lower];
    if (tx !== null) this.counts.set(tx, (this.counts.get(tx) ?? 0) + 1);
  }

  remove(row: EventRow): void {
    const tx = row[ROW.tx_lower];
    if (tx === null) return;
    const n = (this.counts.get(tx) ?? 1) - 1;
    if (n <= 0) this.counts.delete(tx);
    else this.counts.set(tx, n);
  }

  has(txLower: string): boolean {
    return this.counts.has(txLower);
  }
}
