import { describe, expect, it } from 'vitest';
import { base64urlProblem, decodeCompact } from '../../../electron/core/jwt/decode';
import { claims, forge } from './fixtures';

const header = { alg: 'RS256', kid: 'k1', typ: 'JWT' };

describe('decodeCompact', () => {
  it('decodes a well-formed compact JWS', () => {
    const d = decodeCompact(forge(header, claims(), 'c2ln'));
    expect(d).toMatchObject({
      ok: true,
      form: 'jws',
      header,
      payload: claims(),
      signatureBytes: 3,
      problems: [],
    });
    expect(d.segments?.signature).toBe('c2ln');
  });

  it('says an empty input is empty', () => {
    const d = decodeCompact('  ');
    expect(d.ok).toBe(false);
    expect(d.problems).toEqual([
      expect.objectContaining({ code: 'EMPTY', message: expect.stringContaining('empty') }),
    ]);
  });

  it('recognises a JWE (five segments) and says it is not a JWS, showing its header', () => {
    const jweHeader = { alg: 'RSA-OAEP-256', enc: 'A256GCM' };
    const jwe = `${forge(jweHeader, 'x').split('.')[0]}.a.b.c.d`;
    const d = decodeCompact(jwe);
    expect(d.form).toBe('jwe');
    expect(d.header).toEqual(jweHeader);
    expect(d.problems[0]?.code).toBe('JWE');
    expect(d.problems[0]?.message).toMatch(/JWE.*not a JWS/);
    expect(d.problems[0]?.message).toContain('RSA-OAEP-256');
  });

  it('names a missing signature segment and other segment counts', () => {
    expect(decodeCompact('abc.def').problems[0]?.message).toMatch(/signature segment is missing/);
    expect(decodeCompact('abcdef').problems[0]?.message).toMatch(/no dots/);
    expect(decodeCompact('a.b.c.d').problems[0]?.message).toMatch(/4 dot-separated segments/);
  });

  it('names the segment, the character and its position for bad base64url in the header', () => {
    const good = forge(header, claims(), 'c2ln');
    const [h, p, s] = good.split('.') as [string, string, string];
    const bad = `${h.slice(0, 4)}+${h.slice(5)}.${p}.${s}`;
    const d = decodeCompact(bad);
    expect(d.header).toBeNull();
    expect(d.payload).toEqual(claims());
    expect(d.problems).toHaveLength(1);
    expect(d.problems[0]).toMatchObject({ code: 'BASE64URL', segment: 'header' });
    expect(d.problems[0]?.message).toMatch(
      /^header segment is not base64url: '\+'.*at position 5 \(character 5 of the token\)/,
    );
  });

  it('names "=" padding in the payload, with its position in the token', () => {
    const [h, p, s] = forge(header, claims(), 'c2ln').split('.') as [string, string, string];
    const d = decodeCompact(`${h}.${p}==.${s}`);
    expect(d.header).toEqual(header);
    expect(d.payload).toBeNull();
    expect(d.problems[0]).toMatchObject({ segment: 'payload' });
    expect(d.problems[0]?.message).toContain(`'=' padding`);
    expect(d.problems[0]?.message).toContain(
      `at position ${p.length + 1} (character ${h.length + 1 + p.length + 1} of the token)`,
    );
  });

  it('names "/" in the signature and keeps header and payload', () => {
    const d = decodeCompact(forge(header, claims(), 'ab/c'));
    expect(d.header).toEqual(header);
    expect(d.payload).toEqual(claims());
    expect(d.problems).toEqual([
      expect.objectContaining({
        segment: 'signature',
        message: expect.stringMatching(/signature segment is not base64url: '\/'.*position 3/),
      }),
    ]);
  });

  it('says "payload segment is not JSON" when the payload decodes to text that is not JSON', () => {
    const d = decodeCompact(forge(header, 'hello there', 'c2ln'));
    expect(d.header).toEqual(header);
    expect(d.payload).toBeNull();
    expect(d.problems[0]).toMatchObject({ code: 'JSON', segment: 'payload' });
    expect(d.problems[0]?.message).toMatch(/^payload segment is not JSON: .*"hello there"/);
  });

  it('says a JSON header that is not an object is not an object', () => {
    const d = decodeCompact(forge(['RS256'], claims(), 'c2ln'));
    expect(d.problems[0]).toMatchObject({ code: 'NOT_OBJECT', segment: 'header' });
    expect(d.problems[0]?.message).toBe('header segment is JSON but an array, not an object');
  });

  it('reports every broken segment at once', () => {
    const d = decodeCompact('a+b.c d.e=');
    expect(d.problems.map((p) => p.segment)).toEqual(['header', 'payload', 'signature']);
    expect(d.problems[1]?.message).toContain('a space at position 2');
  });

  it('decodes a truncated token as far as it goes and names what is missing', () => {
    const [h, p] = forge({ alg: 'RS256', kid: 'k1' }, claims()).split('.') as [string, string];
    const two = decodeCompact(`${h}.${p}`);
    expect(two).toMatchObject({ form: 'invalid', ok: false, header: { alg: 'RS256', kid: 'k1' } });
    expect(two.payload).toEqual(claims());
    expect(two.problems.map((x) => x.message)).toEqual([
      '2 dot-separated segments: the signature segment is missing (a compact JWS is header.payload.signature)',
      'decoded as far as it goes: the header and the payload decoded; missing: a signature',
    ]);
    const one = decodeCompact(h);
    expect(one.header).toEqual({ alg: 'RS256', kid: 'k1' });
    expect(one.payload).toBeNull();
    expect(one.problems[1]?.message).toBe(
      'decoded as far as it goes: the header decoded; missing: a payload, a signature',
    );
    // Not a header at all: nothing claimed.
    expect(decodeCompact('abc.def').header).toBeNull();
  });

  it('accepts an empty signature segment as well-formed (the alg check refuses unsigned tokens)', () => {
    const d = decodeCompact(forge({ alg: 'none' }, claims()));
    expect(d.ok).toBe(true);
    expect(d.signatureBytes).toBe(0);
  });
});

describe('base64urlProblem', () => {
  it('accepts the base64url alphabet and refuses impossible lengths', () => {
    expect(base64urlProblem('AZaz09-_')).toBeNull();
    expect(base64urlProblem('abcde')?.message).toMatch(/length, 5, is impossible/);
  });
  it('names control and non-ASCII characters by code point', () => {
    expect(base64urlProblem('ab\u0001')?.message).toBe('a control character (U+0001) at position 3');
    expect(base64urlProblem('abé')?.message).toBe(`'é' (U+00E9) at position 3`);
    expect(base64urlProblem('ab\n')?.message).toBe('a line break at position 3');
  });
});
