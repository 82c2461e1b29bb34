/**
 * The byte bounds of a recorded HTTP message (DESIGN.md "Storage"): header values past 1 KiB and
 * header sections past 8 KiB cut, bodies past 64 KiB cut, the sizes as received kept; nothing
 * copied when nothing needs cutting.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_RECORDED_BODY,
  MAX_RECORDED_HEADER_SECTION,
  MAX_RECORDED_HEADER_VALUE,
  boundBody,
  boundHeaders,
  boundMessage,
  headerSectionBytes,
  type BoundableMessage,
} from '../../../electron/core/http/bounds';

describe('boundHeaders', () => {
  it('gives back the very object when every value and the section are within bounds', () => {
    const headers = { host: '127.0.0.1:7301', 'x-a': 'a'.repeat(MAX_RECORDED_HEADER_VALUE) };
    const r = boundHeaders(headers);
    expect(r.headers).toBe(headers);
    expect(r.cut).toBeNull();
  });

  it('cuts a value past 1 KiB to 1 KiB and keeps its size', () => {
    const r = boundHeaders({ host: 'h', 'x-pad': 'p'.repeat(5000) });
    expect(r.headers['x-pad']).toBe('p'.repeat(MAX_RECORDED_HEADER_VALUE));
    expect(r.headers.host).toBe('h');
    expect(r.cut).toEqual({
      header_bytes: 'host'.length + 1 + 4 + 'x-pad'.length + 5000 + 4,
      values: { 'x-pad': 5000 },
    });
  });

  it('leaves out what no longer fits in 8 KiB, counted; a later small header still fits', () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 15; i++) headers[`x-junk-${i}`] = 'j'.repeat(1000);
    headers['content-type'] = 'application/json';
    const r = boundHeaders(headers);
    expect(headerSectionBytes(r.headers)).toBeLessThanOrEqual(MAX_RECORDED_HEADER_SECTION);
    expect(r.headers['content-type']).toBe('application/json');
    const kept = Object.keys(r.headers).filter((k) => k.startsWith('x-junk-')).length;
    expect(r.cut?.headers_left_out).toBe(15 - kept);
    expect(r.cut?.header_bytes).toBe(headerSectionBytes(headers));
  });

  it('keeps the header named whole and first (a proven X-Session-ID), counting it in the section', () => {
    const token = 't'.repeat(3000);
    const headers: Record<string, string> = { 'x-pad': 'p'.repeat(7000), 'x-session-id': token };
    const r = boundHeaders(headers, 'x-session-id');
    expect(Object.keys(r.headers)[0]).toBe('x-session-id');
    expect(r.headers['x-session-id']).toBe(token);
    expect(r.headers['x-pad']).toHaveLength(MAX_RECORDED_HEADER_VALUE);
    expect(headerSectionBytes(r.headers)).toBeLessThanOrEqual(MAX_RECORDED_HEADER_SECTION);
  });

  it('bounds long names by the section', () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 6; i++) headers[`${i}${'n'.repeat(2000)}`] = 'v';
    const r = boundHeaders(headers);
    expect(headerSectionBytes(r.headers)).toBeLessThanOrEqual(MAX_RECORDED_HEADER_SECTION);
    expect(r.cut?.headers_left_out).toBe(2);
  });
});

describe('boundBody', () => {
  it('leaves a body within 64 KiB as it is', () => {
    const body = 'x'.repeat(MAX_RECORDED_BODY);
    expect(boundBody(body)).toEqual({ body, bytes: null });
    expect(boundBody(null)).toEqual({ body: null, bytes: null });
  });

  it('cuts a longer body to 64 KiB of UTF-8 on a character boundary, keeping its size in bytes', () => {
    // 3-byte characters and a 4-byte one (a surrogate pair) at the edge.
    const body = `${'€'.repeat(21_845)}😀${'€'.repeat(100)}`;
    const r = boundBody(body);
    expect(r.bytes).toBe(Buffer.byteLength(body));
    expect(Buffer.byteLength(r.body!)).toBeLessThanOrEqual(MAX_RECORDED_BODY);
    expect(body.startsWith(r.body!)).toBe(true);
    expect(r.body!.at(-1)).not.toMatch(/[\uD800-\uDBFF]/);
    expect(Buffer.from(r.body!, 'utf8').toString('utf8')).toBe(r.body);
  });
});

describe('boundMessage', () => {
  it('bounds headers and body together and merges the cut', () => {
    const m: BoundableMessage & { method: string } = {
      method: 'POST',
      headers: { 'x-pad': 'p'.repeat(2000) },
      body: 'b'.repeat(MAX_RECORDED_BODY + 10),
    };
    const r = boundMessage(m);
    expect(r.method).toBe('POST');
    expect(r.cut).toEqual({
      header_bytes: 2000 + 'x-pad'.length + 4,
      values: { 'x-pad': 2000 },
      body_bytes: MAX_RECORDED_BODY + 10,
    });
    expect(r.body).toHaveLength(MAX_RECORDED_BODY);
  });

  it('is the identity when nothing needs cutting', () => {
    const m = { headers: { a: 'b' }, body: '{}' };
    expect(boundMessage(m)).toBe(m);
  });
});
