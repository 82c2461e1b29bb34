import { describe, expect, it } from 'vitest';
import { emptyReply, errorReply, jsonReply, recordedText } from '../../../electron/core/http/reply';

describe('replies', () => {
  it('a masked reply sends the key and records only its length (in symbols, not bytes)', () => {
    const r = jsonReply(200, { external_id: 'e', key: 'kö🔑' }, { maskKey: true });
    expect(JSON.parse(r.text)).toEqual({ external_id: 'e', key: 'kö🔑' });
    expect(r.recorded()).toBe('{"external_id":"e","key":"<masked: 3 characters>"}');
    expect(r.recorded()).not.toContain('kö');
  });

  it('without maskKey, or with a key that is not a string, the record is the text', () => {
    expect(jsonReply(200, { key: 'abc' }).recorded()).toBe('{"key":"abc"}');
    expect(jsonReply(200, { key: 5 }, { maskKey: true }).recorded()).toBe('{"key":5}');
    expect(jsonReply(200, null, { maskKey: true }).recorded()).toBe('null');
  });

  it('carries the exact Content-Length on the wire, and its own headers beside the JSON ones', () => {
    const r = errorReply(405, 'method_not_allowed', 'é', { Allow: 'GET' });
    expect(r.wire?.['Content-Length']).toBe(String(Buffer.byteLength(r.text)));
    expect(r.headers).toMatchObject({ Allow: 'GET', 'Cache-Control': 'no-store' });
    expect(r.value).toEqual({ error: 'method_not_allowed', detail: 'é' });
  });

  it("a backend's text is recorded with a JSON key masked, anything else as it is", () => {
    expect(recordedText('{"key":"s3cret","a":1}')).toBe('{"key":"<masked: 6 characters>","a":1}');
    expect(recordedText('plain text')).toBe('plain text');
    expect(recordedText('[1]')).toBe('[1]');
  });

  it('an empty reply has no body to record', () => {
    expect(emptyReply(200)).toMatchObject({ status: 200, text: '' });
    expect(emptyReply(200).recorded()).toBeNull();
  });
});
