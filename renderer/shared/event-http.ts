/**
 * One reading of any stored event (notification, callback, exchange, refused request, trace) for
 * the one detail view (issue 13 item 1): its request and response as HTTP, its outcome and the
 * reason, and the commands that replay it. Pure functions over `events.get`'s EventDetail.
 */
import type { EventDetail, HttpCut } from '../../electron/contract/schemas/events';
import type { Exchange } from '../../electron/contract/schemas/service';
import type { Trace } from '../../electron/contract/schemas/sandbox';
import type { HttpRequestLike, HttpResponseLike } from './http-text';

export type HttpRequestView = HttpRequestLike;
export type HttpResponseView = HttpResponseLike;

export type EventKindLabel = 'notification' | 'callback' | 'refused request' | 'exchange' | 'trace';

export interface EventReading {
  kind: EventKindLabel;
  request: HttpRequestView | null;
  response: HttpResponseView | null;
  /** passed / failed, and why in one line (the failed check, the rejection's own words, the error). */
  outcome: { status: 'passed' | 'failed' | 'info'; word: string; reason: string | null };
  duration_ms: number | null;
  /** For traces: every step, each possibly an HTTP exchange of its own. */
  trace: Trace | null;
  /** What was cut of the stored request and response (DESIGN.md "Storage"), in words; null: nothing. */
  cut: { request: string | null; response: string | null };
  /** Set when the event is a compact record (its request was not kept): what is kept, and the sizes. */
  compact: string | null;
}

const bytes = (n: number) => `${n.toLocaleString('en-US')} bytes`;

/**
 * What the console cut of a stored message, in words, with the sizes as received; null when it
 * cut nothing (`cut` absent).
 *
 * @example
 * cutNote({ header_bytes: 15_432, values: { 'x-pad': 15_000 } });
 * // 'cut: headers 15,432 bytes as received; x-pad 15,000 bytes, cut to 1 KiB'
 */
export function cutNote(cut: HttpCut | undefined): string | null {
  if (!cut) return null;
  const parts: string[] = [];
  if (cut.header_bytes !== undefined) parts.push(`headers ${bytes(cut.header_bytes)} as received`);
  if (cut.headers_left_out)
    parts.push(`${cut.headers_left_out} header${cut.headers_left_out === 1 ? '' : 's'} left out past 8 KiB`);
  for (const [name, size] of Object.entries(cut.values ?? {}))
    parts.push(`${name} ${bytes(size)}, cut to 1 KiB`);
  if (cut.body_bytes !== undefined) parts.push(`body ${bytes(cut.body_bytes)}, cut to 64 KiB`);
  return parts.length > 0 ? `cut: ${parts.join('; ')}` : null;
}

interface CompactData {
  compact: true;
  reason?: string;
  request_header_bytes?: number;
  request_body_bytes?: number;
  response_body_bytes?: number;
  token_header_note?: string;
}

function compactData(data: unknown): CompactData | null {
  return !!data && typeof data === 'object' && (data as { compact?: unknown }).compact === true
    ? (data as CompactData)
    : null;
}

/** A compact record (store/records.ts compactRecord) in words: why, what is kept, the sizes. */
export function compactNote(d: EventDetail): string | null {
  const c = compactData(d.data);
  if (!c) return null;
  const why =
    d.failed_check === 'origin'
      ? 'it came from a web page (Origin header)'
      : d.failed_check
        ? `its token was not proven (failed at ${d.failed_check})`
        : 'it was refused before any check';
  const sizes = [
    `request headers ${bytes(c.request_header_bytes ?? 0)}`,
    `request body ${bytes(c.request_body_bytes ?? 0)}`,
    `response body ${bytes(c.response_body_bytes ?? 0)}`,
  ].join(', ');
  const note = c.token_header_note ? ` (${c.token_header_note})` : '';
  return `Stored as a compact record because ${why}: the route, time, remote address, failed check, reason, the token's header${note} and the obj and sub it claimed are kept, not the headers or bodies. Sizes as received: ${sizes}.`;
}

function isExchange(data: unknown): data is Exchange {
  return !!data && typeof data === 'object' && 'operation' in data && 'request' in data;
}

function isTrace(data: unknown): data is Trace {
  return !!data && typeof data === 'object' && 'steps' in data && Array.isArray((data as Trace).steps);
}

/** `{"error":"…","detail":"…"}` (the bank's and the sandbox's refusals) → its detail, else the text. */
export function reasonFromBody(body: string | null): string | null {
  if (!body) return null;
  try {
    const value = JSON.parse(body) as { detail?: unknown; error?: unknown; message?: unknown };
    const words = [value.error, value.detail ?? value.message].filter((w) => typeof w === 'string');
    if (words.length > 0) return words.join(': ');
  } catch {
    // not JSON: the text itself
  }
  return body.length > 300 ? `${body.slice(0, 300)}…` : body;
}

export function readEvent(d: EventDetail): EventReading {
  const stored = (m: EventDetail['request']): HttpRequestView | null =>
    m
      ? {
          method: m.method ?? d.method ?? 'GET',
          url: m.url ?? d.path ?? '',
          headers: m.headers,
          body: m.body,
        }
      : null;
  const storedResponse = (m: EventDetail['response']): HttpResponseView | null =>
    m ? { status: m.status ?? d.status ?? 0, headers: m.headers, body: m.body } : null;

  if (d.kind === 'exchange' && isExchange(d.data)) {
    const x = d.data;
    return {
      kind: 'exchange',
      request: x.request,
      response: x.response,
      outcome: x.ok
        ? { status: 'passed', word: `HTTP ${x.response?.status ?? '—'}`, reason: null }
        : {
            status: 'failed',
            word: x.response ? `HTTP ${x.response.status}` : 'no answer',
            reason: [x.error, x.explanation].filter(Boolean).join(' · ') || null,
          },
      duration_ms: x.duration_ms,
      trace: null,
      cut: { request: null, response: null },
      compact: null,
    };
  }
  if (d.kind === 'trace' && isTrace(d.data)) {
    const t = d.data;
    const failed = t.steps.find((s) => s.id === t.failed) ?? null;
    const http = t.steps.find((s) => s.request) ?? null;
    return {
      kind: 'trace',
      request: http?.request ?? null,
      response: http?.response ?? null,
      outcome: t.ok
        ? { status: 'passed', word: `${t.kind} passed`, reason: null }
        : { status: 'failed', word: `failed: ${t.failed ?? '?'}`, reason: failed?.detail ?? null },
      duration_ms: t.duration_ms,
      trace: t,
      cut: { request: cutNote(http?.request?.cut), response: cutNote(http?.response?.cut) },
      compact: null,
    };
  }
  const request = stored(d.request);
  const response = storedResponse(d.response);
  const compact = compactNote(d);
  const refused = (d.kind === 'callback' && !d.path) || compact !== null;
  const failedCheck = d.checks?.find((c) => c.status === 'failed') ?? null;
  const bad = d.failed_check !== null || (d.status !== null && d.status >= 400) || d.outcome === 'rejected';
  const word =
    d.kind === 'notification'
      ? (d.outcome ?? `HTTP ${d.status ?? '—'}`)
      : d.failed_check
        ? `failed: ${d.failed_check}`
        : bad
          ? `HTTP ${d.status ?? '—'}`
          : 'passed';
  // The failure in its own words ("phone: phone missing"), never the check's title (issue 24).
  const reason = failedCheck
    ? `${failedCheck.id}: ${failedCheck.detail}`
    : bad
      ? (reasonFromBody(response?.body ?? null) ?? d.warning)
      : d.outcome === 'repeat'
        ? 'this transaction_id was received before: answered 200 and marked as a repeat (spec 4.3)'
        : null;
  return {
    kind: refused ? 'refused request' : d.kind === 'notification' ? 'notification' : 'callback',
    request,
    response,
    outcome: { status: bad ? 'failed' : 'passed', word, reason: reason ?? compactReason(d) },
    duration_ms: d.duration_ms,
    trace: null,
    cut: { request: cutNote(d.request?.cut), response: cutNote(d.response?.cut) },
    compact,
  };
}

/** A compact record's reason (its response is not stored). */
function compactReason(d: EventDetail): string | null {
  const reason = compactData(d.data)?.reason;
  return typeof reason === 'string' ? reason : null;
}

/** The request's absolute URL: a stored path is joined to the listener that received it. */
export function absoluteUrl(url: string, listenerUrl: string | null): string | null {
  if (/^https?:\/\//i.test(url)) return url;
  if (!listenerUrl || !url.startsWith('/')) return null;
  return new URL(url, listenerUrl.endsWith('/') ? listenerUrl : `${listenerUrl}/`).toString();
}

/** Headers a replay must not copy: the transport's own, and what the recorder masked. */
const SKIPPED = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'accept-encoding']);
function replayHeaders(headers: Record<string, string>): [string, string][] {
  return Object.entries(headers).filter(
    ([k, v]) => !SKIPPED.has(k.toLowerCase()) && !v.startsWith('<masked'),
  );
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * A curl command that sends the request again to the listener that received it, runnable as is
 * (absolute URL, method, headers, body); null when the URL cannot be made absolute.
 */
export function curlCommand(r: HttpRequestView, listenerUrl: string | null): string | null {
  const url = absoluteUrl(r.url, listenerUrl);
  if (!url) return null;
  const method = r.method.toUpperCase();
  const parts = ['curl', '-sS', ...(method === 'GET' ? [] : ['-X', method]), shellQuote(url)];
  for (const [k, v] of replayHeaders(r.headers)) parts.push('-H', shellQuote(`${k}: ${v}`));
  if (r.body !== null && r.body !== '') parts.push('--data-raw', shellQuote(r.body));
  return parts.join(' ');
}

/** The request as it goes on the wire (HTTP/1.1, origin-form target, Host header first). */
export function rawRequest(r: HttpRequestView, listenerUrl: string | null): string {
  const abs = absoluteUrl(r.url, listenerUrl);
  const target = abs ? new URL(abs) : null;
  const lines = [`${r.method.toUpperCase()} ${target ? target.pathname + target.search : r.url} HTTP/1.1`];
  if (target) lines.push(`Host: ${target.host}`);
  for (const [k, v] of Object.entries(r.headers)) if (k.toLowerCase() !== 'host') lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n${r.body ?? ''}`;
}

export function rawResponse(r: HttpResponseView): string {
  const lines = [`HTTP/1.1 ${r.status}`, ...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join('\r\n')}\r\n\r\n${r.body ?? ''}`;
}
