// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { analyzeTokenText } from '../../../../renderer/shared/token-text';

const T = 'aaa.bbb.ccc';

describe('analyzeTokenText', () => {
  it.each([
    [T, []],
    [`  ${T}\n`, []],
    [`Bearer ${T}`, ['`Bearer ` prefix']],
    [`CX-Authorization: Bearer ${T}`, ['`CX-Authorization:` header name', '`Bearer ` prefix']],
    [`x-session-id:${T}`, ['`x-session-id:` header name']],
    [`"${T}",`, ['trailing `,`']],
    [`"${T}"`, ['quotes']],
    [`aaa.bb\n  b.ccc`, ['3 whitespace characters inside']],
    [
      `  "CX-Authorization": "Bearer ${T}",\n`,
      ['`CX-Authorization:` header name', 'quotes', '`Bearer ` prefix', 'trailing `,`'],
    ],
    [`session_token=${T};`, ['`session_token:` header name', 'trailing `;`']],
  ])('%j → the bare token', (raw, stripped) => {
    const r = analyzeTokenText(raw);
    expect(r.token).toBe(raw.includes('\n  b') ? 'aaa.bbb.ccc' : T);
    expect(r.runs.map((x) => x.text).join('')).toBe(raw);
    if (stripped.length) expect(r.stripped).toEqual(expect.arrayContaining(stripped));
    else expect(r.stripped).toEqual([]);
  });

  it('marks segments beyond the third (a JWE has five) as extra', () => {
    const kinds = analyzeTokenText('a.b.c.d.e').runs.map((r) => r.kind);
    expect(kinds).toEqual(['header', 'dot', 'payload', 'dot', 'signature', 'dot', 'extra', 'dot', 'extra']);
  });

  it('a lone prefix is not a token', () => {
    expect(analyzeTokenText('Bearer  ').token).toBe('');
  });
});
