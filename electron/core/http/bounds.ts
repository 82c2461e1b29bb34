/**
 * The byte bounds of a recorded HTTP message (DESIGN.md "Storage": "Every stored event is
 * bounded in bytes, whoever sent it: header values beyond 1 KiB and header sections beyond 8 KiB
 * are cut (the original sizes are kept), bodies beyond 64 KiB likewise"). One rule, one place:
 * the event store applies it to every request and response it stores (store/records.ts), and
 * the sandbox to the HTTP exchanges of its traces (sandbox/trace.ts).
 *
 * Threat model: everything measured here may come from anyone who can reach a listener (header
 * names and values, bodies), up to the listener's own limits (16 KiB of headers, 1 MiB of body).
 * The functions run on the event loop for every stored event, so the common case (nothing to
 * cut) allocates nothing and answers the message it was given.
 *
 * Sizes: node decodes header bytes as latin1 (one character per byte received), so a header's
 * length in characters is its size as received; a body is text decoded as UTF-8 and is measured
 * in UTF-8 bytes.
 */
import type { HttpCut } from '../../contract/schemas/events';

/** A header value longer than this (bytes) is cut to it. */
export const MAX_RECORDED_HEADER_VALUE = 1024;
/** Headers past this many bytes of a section (`name: value\r\n` lines) are left out. */
export const MAX_RECORDED_HEADER_SECTION = 8 * 1024;
/** A body longer than this (UTF-8 bytes) is cut to it. */
export const MAX_RECORDED_BODY = 64 * 1024;

export type { HttpCut };

/** The bytes one header takes in a section: `name: value\r\n`. */
export function headerLineBytes(name: string, value: string): number {
  return name.length + value.length + 4;
}

/** The bytes of a header section as recorded (every `name: value\r\n` line). */
export function headerSectionBytes(headers: Record<string, string> | undefined | null): number {
  let n = 0;
  for (const name in headers) n += headerLineBytes(name, headers[name] as string);
  return n;
}

function needsCut(headers: Record<string, string>): boolean {
  let section = 0;
  for (const name in headers) {
    const value = headers[name] as string;
    if (value.length > MAX_RECORDED_HEADER_VALUE) return true;
    section += headerLineBytes(name, value);
    if (section > MAX_RECORDED_HEADER_SECTION) return true;
  }
  return false;
}

/**
 * Headers bounded for the record: each value at most 1 KiB, the section at most 8 KiB (headers
 * that no longer fit are left out, counted; a later smaller one still goes in). `keepWhole`
 * names a header that is kept as it is and placed first (the X-Session-ID of a callback whose
 * signature was proven: the service's own token, which the detail view decodes again).
 * `cut` is null when nothing was cut, and `headers` is then the very object given.
 *
 * @example
 * const { headers, cut } = boundHeaders({ 'x-pad': 'h'.repeat(15_000) });
 * // headers['x-pad'].length === 1024; cut = { header_bytes: 15_009, values: { 'x-pad': 15_000 } }
 */
export function boundHeaders(
  headers: Record<string, string>,
  keepWhole?: string,
): { headers: Record<string, string>; cut: HttpCut | null } {
  if (!needsCut(headers)) return { headers, cut: null };
  const out: Record<string, string> = {};
  const values: Record<string, number> = {};
  let section = 0;
  let left = 0;
  let total = 0;
  const whole = keepWhole !== undefined ? headers[keepWhole] : undefined;
  if (keepWhole !== undefined && whole !== undefined) {
    out[keepWhole] = whole;
    section += headerLineBytes(keepWhole, whole);
  }
  for (const name in headers) {
    const value = headers[name] as string;
    total += headerLineBytes(name, value);
    if (name === keepWhole) continue;
    // A name counts in the section like its value: long names are bounded by the section.
    const kept = value.length > MAX_RECORDED_HEADER_VALUE ? value.slice(0, MAX_RECORDED_HEADER_VALUE) : value;
    const line = headerLineBytes(name, kept);
    if (section + line > MAX_RECORDED_HEADER_SECTION) {
      left += 1;
      continue;
    }
    if (kept !== value) values[name] = value.length;
    out[name] = kept;
    section += line;
  }
  const cut: HttpCut = { header_bytes: total };
  if (left > 0) cut.headers_left_out = left;
  if (Object.keys(values).length > 0) cut.values = values;
  return { headers: out, cut };
}

/**
 * A body bounded for the record: at most 64 KiB of UTF-8, cut on a character boundary; `bytes`
 * is its size as given when it was cut, else null (and `body` is the text given).
 *
 * @example
 * boundBody('x'.repeat(70_000)); // { body: 'x' × 65,536, bytes: 70_000 }
 */
export function boundBody(body: string | null): { body: string | null; bytes: number | null } {
  if (body === null || body.length * 3 <= MAX_RECORDED_BODY) return { body, bytes: null };
  const bytes = Buffer.byteLength(body);
  if (bytes <= MAX_RECORDED_BODY) return { body, bytes: null };
  let kept = body.slice(0, MAX_RECORDED_BODY);
  let keptBytes = Buffer.byteLength(kept);
  while (keptBytes > MAX_RECORDED_BODY) {
    // Shrink in proportion, then by one: a few rounds at most.
    const next = Math.min(kept.length - 1, Math.floor((kept.length * MAX_RECORDED_BODY) / keptBytes));
    kept = kept.slice(0, next);
    keptBytes = Buffer.byteLength(kept);
  }
  // Never end on half of a surrogate pair.
  const last = kept.charCodeAt(kept.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) kept = kept.slice(0, -1);
  return { body: kept, bytes };
}

/** A recorded HTTP message: headers, body and (when cut) what was cut. */
export interface BoundableMessage {
  headers: Record<string, string>;
  body: string | null;
  cut?: HttpCut;
}

/**
 * A message with its headers and body bounded and `cut` saying what was cut (merged with any
 * `cut` it already had); the very message given when nothing needed cutting.
 */
export function boundMessage<M extends BoundableMessage>(message: M, keepWhole?: string): M {
  const h = boundHeaders(message.headers, keepWhole);
  const b = boundBody(message.body);
  if (h.cut === null && b.bytes === null) return message;
  const cut: HttpCut = { ...message.cut, ...h.cut };
  if (b.bytes !== null) cut.body_bytes = b.bytes;
  return { ...message, headers: h.headers, body: b.body, cut };
}
