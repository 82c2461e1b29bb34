/**
 * What the event store makes of an event before it is written (issue 12): its id, its size cap,
 * its retention class, the compact form of a request refused before any check, and the row the
 * database stores (indexed columns, the whole record as JSON, the text the search index sees).
 * Pure functions: the writer, the migration of old profiles and the tests all use these.
 */
import type { EventDetail, EventKind, EventSummary } from '../../contract/schemas/events';
// The writer worker's bundle imports this file: it takes the leaves it needs, not http's barrel,
// which would pull the listener and the contract's zod into a worker shipped without node_modules.
// eslint-disable-next-line no-restricted-imports
import { boundMessage, headerSectionBytes } from '../http/bounds';
// eslint-disable-next-line no-restricted-imports
import { ORIGIN_CHECK_ID } from '../http/origin';
import { compactTokenHeader, cut, kidOf } from './token-header';

export const EVENT_KINDS: readonly EventKind[] = [
  'notification',
  'callback',
  'exchange',
  'trace',
  'audit',
  'route',
];
export const DEFAULT_MAX_RECORD_BYTES = 256 * 1024;
const ID_RE = /^e(\d{12})$/;
const TRUNCATED_MARKER = '…[truncated by the event store: record over the size cap]';
/** Bodies past this many characters are not searched (they are still stored whole). */
const SEARCH_BODY_CHARS = 8 * 1024;
/** Characters a compact record keeps: of free text, of its path (routes are far shorter),
 * and of obj and sub (an IBAN is 34 at most). */
const [COMPACT_TEXT_CHARS, COMPACT_PATH_CHARS, COMPACT_CLAIM_CHARS] = [300, 160, 64];

/** `e` + a 12-digit sequence: ids sort in append order (DESIGN.md "Command line", `before`). */
export function formatEventId(seq: number): string {
  return `e${String(seq).padStart(12, '0')}`;
}

/**
 * The id a record carries until the writer gives it its own at commit (writer-commit.ts replaces
 * this exact prefix of the record's JSON: the id is always its first key).
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
 * - `rejected`: a notification refused (bad body); `callback`, `exchange`, `trace`: by kind.
 * - `refused`: a request whose token was not proven, or from a web page (compact records, see
 *   storedAsRefused and compactRecord). `audit`: a team hub's changes (issue 30), kept. `route`:
 *   a hub's routed requests the laptop missed (issue 30 item 3), bounded.
 */
const CLASSES = ['ack', 'rejected', 'callback', 'exchange', 'trace', 'refused', 'audit', 'route'] as const;
export const RETENTION_CLASSES = CLASSES;
export type RetentionClass = (typeof RETENTION_CLASSES)[number];

/** The failed_check of a hub's audit event for a call the member's role may not make (team/audit.ts). */
export const FORBIDDEN_CHECK = 'FORBIDDEN';

/**
 * The token checks that come before the signature is proven (DESIGN.md "Storage"): a callback
 * that failed one of them carries a token anyone could have made, with no key.
 */
export const UNPROVEN_CHECKS: readonly string[] = ['present', 'structure', 'alg', 'crit', 'kid', 'signature'];

/**
 * Whether a request is stored as a compact record under the `refused` cap (DESIGN.md "Storage",
 * "Bank endpoints"): a request from a web page (failed_check `origin`, any kind: a callback, a
 * notification, a request to the sandbox); a callback whose token was not proven (it failed at
 * `present`, `structure`, `alg`, `crit`, `kid` or `signature`), or with no decoded token at all
 * (an unknown route, a wrong method), or one node:http refused before routing (431 headers, 408
 * timeout, 400 malformed: no path). Anyone can send these without a key, so they are what a
 * flood is made of, and they must not make the database grow or crowd out anything else.
 */
export function storedAsRefused(e: Pick<EventDetail, 'kind' | 'failed_check' | 'token' | 'data'>): boolean {
  if (e.failed_check === ORIGIN_CHECK_ID) return true;
  if (e.kind !== 'callback') return false;
  if (typeof e.failed_check === 'string' && UNPROVEN_CHECKS.includes(e.failed_check)) return true;
  // A judged callback stores its verdict, not its decoded token (rebuilt on read: bank/callback-detail.ts).
  if (verdictDetail(e) !== undefined) return false;
  return !e.token || (!e.token.header && !e.token.payload);
}

/** The failed check's detail a judged callback stores (null when it passed); undefined when it stores none. */
export function verdictDetail(e: Pick<EventDetail, 'data'>): string | null | undefined {
  const verdict = (e.data as { verdict?: { detail?: unknown } } | undefined)?.verdict;
  if (verdict === undefined) return undefined;
  return typeof verdict.detail === 'string' ? verdict.detail : null;
}

export function retentionClass(e: EventDetail): RetentionClass {
  // First: a notification from a web page must not fill the `rejected` cap (DESIGN.md).
  if (storedAsRefused(e)) return 'refused';
  // A hub's refusal of a member's call (team/audit.ts: FORBIDDEN, nothing ran) is any viewer
  // token's to send in a loop: it goes under the refused requests' cap, so a flood of them can
  // neither grow the audit class (kept whole: the changes made) nor push a real change out.
  if (e.kind === 'audit' && e.failed_check === FORBIDDEN_CHECK) return 'refused';
  if (e.kind === 'notification') return e.outcome === 'rejected' ? 'rejected' : 'ack';
  return e.kind;
}

/** A record with only its summary left. */
const NO_DETAIL = { request: null, response: null, checks: null, token: null, jwks: null, forward: null };

/** The `detail` of a JSON error answer (`{"error","check","detail"}`, DESIGN.md), if any. */
export function bodyDetail(body: string | null | undefined): string | null {
  if (!body) return null;
  try {
    const v = JSON.parse(body) as { detail?: unknown };
    return typeof v.detail === 'string' ? v.detail : null;
  } catch {
    return null;
  }
}

/** The size of a stored message's body as received (bytes): its `cut` says, else the text's own. */
function bodyBytes(m: EventDetail['request']): number {
  if (!m) return 0;
  return m.cut?.body_bytes ?? (m.body ? Buffer.byteLength(m.body) : 0);
}

/**
 * The compact form of a request stored under the `refused` cap (storedAsRefused): route, time,
 * remote, the failed check and its reason, the token's header (decoded, at most half a
 * kilobyte: it names the kid and alg a sender used), obj and sub as claimed (64 characters
 * each) and the sizes of what was received; no headers, no bodies, no payload. Its size is
 * bounded whatever the request carried (about half a kilobyte; a kilobyte, and under 2 KiB with
 * its search text, at the worst a sender can make it), so the `refused` class's count cap
 * bounds its bytes too.
 */
export function compactRecord(e: EventDetail): EventDetail {
  const failed =
    e.checks?.find((c) => c.status === 'failed') ?? e.checks?.find((c) => c.id === e.failed_check);
  const detail = verdictDetail(e) ?? failed?.detail ?? bodyDetail(e.response?.body);
  const reason = e.failed_check
    ? `${e.failed_check}: ${detail ?? ''}`
    : (e.warning ?? detail ?? (e.status !== null ? `answered ${e.status}` : 'refused'));
  const header = compactTokenHeader(e);
  return {
    ...summarize(e),
    path: cut(e.path, COMPACT_PATH_CHARS),
    method: cut(e.method, 16),
    // As the token claimed them (unproven when failed_check says so), short: enough to find a
    // customer's failures with `events --search`, too little to make the record grow.
    obj: cut(e.obj, COMPACT_CLAIM_CHARS),
    sub: cut(e.sub, COMPACT_CLAIM_CHARS),
    warning: cut(e.warning, COMPACT_TEXT_CHARS),
    remote: cut(e.remote, 64),
    transaction_id: cut(e.transaction_id, 100),
    failed_check: cut(e.failed_check, 32),
    ...NO_DETAIL,
    token: header ? { header: header.header, payload: null } : null,
    // Issue 26: which environment's service published the kid (a signature that then failed is
    // still that environment's callback, for its filter); its name cut as the claims are.
    environment: e.environment
      ? {
          id: cut(e.environment.id, COMPACT_CLAIM_CHARS),
          name: cut(e.environment.name, COMPACT_CLAIM_CHARS) ?? '',
        }
      : null,
    data: {
      compact: true,
      reason: cut(reason, COMPACT_TEXT_CHARS),
      ...(header?.note ? { token_header_note: header.note } : {}),
      request_header_bytes: e.request?.cut?.header_bytes ?? headerSectionBytes(e.request?.headers),
      request_body_bytes: bodyBytes(e.request),
      response_body_bytes: bodyBytes(e.response),
    },
  };
}

/**
 * A record with its request and response bounded (http/bounds.ts: header values 1 KiB, header
 * sections 8 KiB, bodies 64 KiB, the sizes kept in `cut`); the very record when nothing needed
 * cutting. A callback's X-Session-ID is kept whole: a record that still has a request is one
 * whose token was proven (the others are compact), and the detail view decodes it again.
 */
export function boundRecord(e: EventDetail): EventDetail {
  const request = e.request
    ? boundMessage(e.request, e.kind === 'callback' ? 'x-session-id' : undefined)
    : null;
  const response = e.response ? boundMessage(e.response) : null;
  if (request === e.request && response === e.response) return e;
  return { ...e, request, response };
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
 * One row of the `events` table (sql.ts MIGRATIONS) as the writer inserts it: positional, in the order of
 * sql.ts INTO_EVENTS's columns (ROW names the places), then the text for the search
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
  environment: string | null,
  search: string,
];

/**
 * The kinds whose search text is never moved into the trigram index (sql.ts versions 6 and 7): it
 * stays, lower-cased, in the plain events_text table, which search scans. Callbacks and
 * notifications are the events recorded per bank request, and a row's trigrams cost more than
 * the row itself, while a scan of their plain text keeps `events --search` over a million events
 * under a second (the store suite; past a few million kept notifications, whose retention is the
 * user's, it grows with them). Exchanges and traces, rarer, stay indexed. The figures:
 * docs/benchmarks.md, "Figures moved from code comments".
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
  environment: 19,
  search: 20,
} as const;

/**
 * The environment a callback belongs to, as its `environment` column holds it (issue 26 item 1;
 * sql.ts version 10 back-fills older rows by the same rule): the id of the environment whose
 * service published its token's kid; null for other kinds, and when no environment did.
 */
export function environmentIdOf(e: Pick<EventDetail, 'kind' | 'environment'>): string | null {
  if (e.kind !== 'callback') return null;
  const id = e.environment?.id;
  return typeof id === 'string' ? id : null;
}

/**
 * The stored form of a record: compacted when it belongs to the `refused` class, else bounded
 * (boundRecord), capped to `maxRecordBytes`, with its indexed columns, and its summary. Throws
 * when the record cannot be serialized.
 */
export function toRow(
  record: EventDetail,
  seq: number,
  maxRecordBytes: number,
): { row: EventRow; stored: EventDetail; summary: EventSummary } {
  const cls = retentionClass(record);
  const stored = cls === 'refused' ? compactRecord(record) : boundRecord(record);
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
    environmentIdOf(stored),
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
