/**
 * What the event store makes of an event before it is written (issue 12): its id, its size cap,
 * its retention class, the compact form of a request refused before any check, and the row the
 * database stores (indexed columns, the whole record as JSON, the text the search index sees).
 * Pure functions: the writer, the migration of old profiles and the tests all use these.
 */
import type { EventDetail, EventKind, EventSummary } from '../../contract/schemas/events';

export const EVENT_KINDS: readonly EventKind[] = ['notification', 'callback', 'exchange', 'trace'];
export const DEFAULT_MAX_RECORD_BYTES = 256 * 1024;
const ID_RE = /^e(\d{12})$/;
const TRUNCATED_MARKER = '…[truncated by the event store: record over the size cap]';
/** Bodies past this many characters are not searched (they are still stored whole). */
const SEARCH_BODY_CHARS = 8 * 1024;
/** A compact record's free text is cut to this many characters. */
const COMPACT_TEXT_CHARS = 300;

/** `e` + a 12-digit sequence: ids sort in append order (DESIGN.md "Command line", `before`). */
export function formatEventId(seq: number): string {
  return `e${String(seq).padStart(12, '0')}`;
}

/**
 * The id a record carries until the writer gives it its own at commit (writer.ts replaces this
 * exact prefix of the record's JSON: the id is always its first key).
 */
export const PENDING_ID = formatEventId(0);

export function parseEventId(id: string): number | null {
  const m = ID_RE.exec(id);
  return m ? Number(m[1]) : null;
}

/** The summary fields of a whole record (what lists show and queries filter on). */
export function summarize(e: EventDetail): EventSummary {
  return {
    id: e.id,
    at: e.at,
    kind: e.kind,
    path: e.path ?? null,
    method: e.method ?? null,
    status: e.status ?? null,
    outcome: e.outcome ?? null,
    transaction_id: e.transaction_id ?? null,
    failed_check: e.failed_check ?? null,
    obj: e.obj ?? null,
    sub: e.sub ?? null,
    duration_ms: e.duration_ms ?? null,
    warning: e.warning ?? null,
    remote: e.remote ?? null,
  };
}

/**
 * The retention classes (DESIGN.md "Bank endpoints": retention is per kind, and what fails
 * before any check cannot crowd out what was acknowledged). Each class has its own cap and is
 * trimmed oldest first within itself only, so no class ever makes room at another's expense.
 * - `ack`: a notification taken (accepted or repeat): kept unless the user sets a retention.
 * - `rejected`: a notification refused (bad body).
 * - `callback`, `exchange`, `trace`: by kind.
 * - `refused`: a request refused before any check (compact records, see compactRecord).
 */
export const RETENTION_CLASSES = ['ack', 'rejected', 'callback', 'exchange', 'trace', 'refused'] as const;
export type RetentionClass = (typeof RETENTION_CLASSES)[number];

/**
 * Whether a callback was refused before any check of its token: no X-Session-ID or no JWS
 * (`present`, `structure`), no decoded token at all (an unknown route, a 404), or a request
 * node:http refused before routing (431 headers, 408 timeout, 400 malformed: no path). Anyone
 * can send these without a key, so they are the noise a flood is made of.
 */
export function refusedBeforeChecks(
  e: Pick<EventDetail, 'kind' | 'failed_check' | 'token' | 'data'>,
): boolean {
  if (e.kind !== 'callback') return false;
  if (e.failed_check === 'present' || e.failed_check === 'structure') return true;
  // A judged callback stores its verdict, not its decoded token (rebuilt on read: bank/callback-detail.ts).
  if (verdictDetail(e) !== undefined) return false;
  return !e.token || (!e.token.header && !e.token.payload);
}

/** The failed check's detail a judged callback stores (null when it passed); undefined when it stores none. */
function verdictDetail(e: Pick<EventDetail, 'data'>): string | null | undefined {
  const verdict = (e.data as { verdict?: { detail?: unknown } } | undefined)?.verdict;
  if (verdict === undefined) return undefined;
  return typeof verdict.detail === 'string' ? verdict.detail : null;
}

/**
 * The kids of recently seen JWS header segments: a bank's callbacks carry a handful of distinct
 * headers (one per service key), so recording one looks its kid up instead of decoding it again
 * (decoding was a fifth of what making a callback's row cost). Bounded: cleared when full.
 */
const kidByHeader = new Map<string, string | null>();
const KID_CACHE_MAX = 256;

/** The kid a callback's token names: from the decoded token, else the raw X-Session-ID's header. */
function kidOf(e: EventDetail): string | null {
  const decoded = e.token?.header?.kid;
  if (typeof decoded === 'string') return decoded;
  const raw = e.request?.headers['x-session-id'];
  if (typeof raw !== 'string') return null;
  const token = raw.trim();
  const dot = token.indexOf('.');
  const segment = dot < 0 ? token : token.slice(0, dot);
  let kid = kidByHeader.get(segment);
  if (kid !== undefined) return kid;
  try {
    const header: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    const k = (header as { kid?: unknown } | null)?.kid;
    kid = typeof k === 'string' ? k : null;
  } catch {
    kid = null;
  }
  if (segment.length <= 1024) {
    if (kidByHeader.size >= KID_CACHE_MAX) kidByHeader.clear();
    kidByHeader.set(segment, kid);
  }
  return kid;
}

export function retentionClass(e: EventDetail): RetentionClass {
  if (e.kind === 'notification') return e.outcome === 'rejected' ? 'rejected' : 'ack';
  if (refusedBeforeChecks(e)) return 'refused';
  return e.kind;
}

/** A record with only its summary left. */
const NO_DETAIL = { request: null, response: null, checks: null, token: null, jwks: null, forward: null };

function cut(text: string | null | undefined, keep: number): string | null {
  if (text === null || text === undefined) return null;
  return text.length <= keep ? text : `${text.slice(0, keep)}…`;
}

function headerBytes(headers: Record<string, string> | undefined): number {
  let n = 0;
  for (const [k, v] of Object.entries(headers ?? {})) n += k.length + v.length + 4;
  return n;
}

/** The `detail` of a JSON error answer (`{"error","check","detail"}`, DESIGN.md), if any. */
function bodyDetail(body: string | null | undefined): string | null {
  if (!body) return null;
  try {
    const v = JSON.parse(body) as { detail?: unknown };
    return typeof v.detail === 'string' ? v.detail : null;
  } catch {
    return null;
  }
}

/**
 * The compact form of a request refused before any check: route, time, remote, reason and
 * sizes; no headers, no bodies, no token. Its size is bounded whatever the request carried, so
 * the `refused` class's count cap bounds its bytes too.
 */
export function compactRecord(e: EventDetail): EventDetail {
  const failed =
    e.checks?.find((c) => c.status === 'failed') ?? e.checks?.find((c) => c.id === e.failed_check);
  const detail = failed?.detail ?? bodyDetail(e.response?.body);
  const reason = e.failed_check
    ? `${e.failed_check}: ${detail ?? ''}`
    : (e.warning ?? detail ?? (e.status !== null ? `answered ${e.status}` : 'refused'));
  return {
    ...summarize(e),
    path: cut(e.path, COMPACT_TEXT_CHARS),
    method: cut(e.method, 16),
    obj: cut(e.obj, COMPACT_TEXT_CHARS),
    sub: cut(e.sub, COMPACT_TEXT_CHARS),
    warning: cut(e.warning, COMPACT_TEXT_CHARS),
    remote: cut(e.remote, 64),
    transaction_id: cut(e.transaction_id, 100),
    failed_check: cut(e.failed_check, 32),
    ...NO_DETAIL,
    data: {
      compact: true,
      reason: cut(reason, COMPACT_TEXT_CHARS),
      request_header_bytes: headerBytes(e.request?.headers),
      request_body_bytes: e.request?.body?.length ?? 0,
      response_body_bytes: e.response?.body?.length ?? 0,
    },
  };
}

/** Makes a record fit the cap: bodies first, then the free-form data, then the headers. */
export function capRecord(record: EventDetail, max: number): string {
  let line = JSON.stringify(record);
  // A UTF-16 unit is at most 3 UTF-8 bytes: short records need no byte count.
  if (line.length * 3 <= max || Buffer.byteLength(line) <= max) return line;
  const mark = (text: string | null, keep: number) =>
    text === null || text.length <= keep ? text : `${text.slice(0, keep)}${TRUNCATED_MARKER}`;
  const copy: EventDetail = { ...record };
  const keep = Math.floor(max / 8);
  if (copy.request) copy.request = { ...copy.request, body: mark(copy.request.body, keep) };
  if (copy.response) copy.response = { ...copy.response, body: mark(copy.response.body, keep) };
  line = JSON.stringify(copy);
  if (Buffer.byteLength(line) <= max) return line;
  if (copy.data !== undefined) copy.data = { truncated: TRUNCATED_MARKER };
  if (copy.token) copy.token = { header: copy.token.header, payload: null };
  line = JSON.stringify(copy);
  if (Buffer.byteLength(line) <= max) return line;
  const bare = (m: EventDetail['request']) => (m ? { ...m, headers: {}, body: mark(m.body, 256) } : m);
  copy.request = bare(copy.request);
  copy.response = bare(copy.response);
  copy.checks = copy.checks?.slice(0, 20) ?? null;
  copy.jwks = null;
  copy.forward = copy.forward ? { ...copy.forward, verdicts: [] } : null;
  line = JSON.stringify(copy);
  if (Buffer.byteLength(line) <= max) return line;
  // Only the summary is left; cut its free text too.
  const s = summarize(copy);
  for (const k of ['path', 'obj', 'sub', 'warning', 'remote', 'transaction_id', 'failed_check'] as const)
    s[k] = mark(s[k], 1024);
  return JSON.stringify({
    ...s,
    ...NO_DETAIL,
    data: { truncated: TRUNCATED_MARKER },
  });
}

/**
 * What full-text search sees of an event (DESIGN.md `events --search`: path, transaction_id,
 * obj, sub, kid, check, detail, bodies), one field per line.
 */
export function searchText(e: EventDetail): string {
  const parts: (string | null | undefined)[] = [
    e.path,
    e.transaction_id,
    e.obj,
    e.sub,
    e.failed_check,
    e.warning,
    e.remote,
  ];
  parts.push(kidOf(e));
  for (const c of e.checks ?? []) if (c.status === 'failed') parts.push(c.detail);
  parts.push(verdictDetail(e));
  if (e.forward?.error) parts.push(e.forward.error);
  if (e.jwks?.error) parts.push(e.jwks.error);
  const data = e.data as { reason?: unknown } | undefined;
  if (data && typeof data.reason === 'string') parts.push(data.reason);
  else if (data !== undefined && e.kind !== 'callback' && e.kind !== 'notification')
    parts.push(cut(JSON.stringify(data), SEARCH_BODY_CHARS));
  parts.push(cut(e.request?.body, SEARCH_BODY_CHARS), cut(e.response?.body, SEARCH_BODY_CHARS));
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join('\n');
}

/**
 * One row of the `events` table (see db.ts) as the writer inserts it: positional, in the order of
 * writer.ts INSERT_EVENT_SQL's parameters (ROW names the places), then the text for the search
 * index. An array, not an object of 19 keys, because rows cross to the writer thread by
 * structured clone, which copies an array of values at about half an object's cost, and the
 * writer binds it as is (no spread, no per-row argument list).
 */
export type EventRow = [
  seq: number,
  at: string,
  at_ms: number,
  kind: string,
  cls: RetentionClass,
  path: string | null,
  method: string | null,
  status: number | null,
  outcome: string | null,
  transaction_id: string | null,
  tx_lower: string | null,
  failed_check: string | null,
  obj: string | null,
  sub: string | null,
  duration_ms: number | null,
  warning: string | null,
  remote: string | null,
  size: number,
  record: string,
  search: string,
];

/**
 * The kinds whose search text is never moved into the trigram index (db.ts versions 6 and 7): it
 * stays, lower-cased, in the plain events_text table, which search scans. Callbacks and
 * notifications are the events recorded per bank request, and a row's trigrams cost more than
 * the row itself: 32 µs of a durable notification's 77 µs of store CPU (test/bench/micro/
 * store-cpu.ts, pinned), as much again as a callback's row. A scan of a million rows' text takes
 * about 170 ms, so `events --search` over a million events stays well under a second; past a few
 * million kept notifications (their retention is the user's) it grows with them. Exchanges and
 * traces, rarer, stay indexed.
 */
export const UNINDEXED_KINDS: readonly string[] = ['callback', 'notification'];

/** The places of an EventRow's fields. */
export const ROW = {
  seq: 0,
  at: 1,
  kind: 3,
  cls: 4,
  outcome: 8,
  tx_lower: 10,
  size: 17,
  record: 18,
  search: 19,
} as const;

/**
 * The stored form of a record: compacted when it was refused before any check, capped to
 * `maxRecordBytes`, with its indexed columns, and its summary. Throws when the record cannot be
 * serialized.
 */
export function toRow(
  record: EventDetail,
  seq: number,
  maxRecordBytes: number,
): { row: EventRow; stored: EventDetail; summary: EventSummary } {
  const cls = retentionClass(record);
  const stored = cls === 'refused' ? compactRecord(record) : record;
  const summary = summarize(stored);
  return { stored, summary, row: rowOfSummary(stored, summary, cls, capRecord(stored, maxRecordBytes), seq) };
}

/** The row of a record stored as `text` (as is: the migration keeps old records byte for byte). */
export function rowOf(stored: EventDetail, text: string, seq: number): EventRow {
  return rowOfSummary(stored, summarize(stored), retentionClass(stored), text, seq);
}

function rowOfSummary(
  stored: EventDetail,
  s: EventSummary,
  cls: RetentionClass,
  text: string,
  seq: number,
): EventRow {
  const atMs = Date.parse(s.at);
  const tx = s.transaction_id;
  return [
    seq,
    s.at,
    Number.isNaN(atMs) ? 0 : atMs,
    s.kind,
    cls,
    s.path,
    s.method,
    typeof s.status === 'number' ? s.status : null,
    s.outcome,
    tx,
    tx === null ? null : tx.toLowerCase(),
    s.failed_check,
    s.obj,
    s.sub,
    typeof s.duration_ms === 'number' ? s.duration_ms : null,
    s.warning,
    s.remote,
    text.length,
    text,
    searchText(stored),
  ];
}

/** A stored record's JSON, or null when it is not a record of ours. */
export function parseRecord(text: string): EventDetail | null {
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== 'object') return null;
    const r = v as EventDetail;
    if (typeof r.id !== 'string' || parseEventId(r.id) === null) return null;
    if (typeof r.at !== 'string' || Number.isNaN(Date.parse(r.at)) || !EVENT_KINDS.includes(r.kind))
      return null;
    return r;
  } catch {
    return null;
  }
}
