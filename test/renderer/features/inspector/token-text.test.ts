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

  // Issue 24 item 11: the page strips what `jwt inspect` strips, ASCII white space only; these
  // stay in the token, which then fails `structure` naming the character, as at the bank.
  it.each([
    ['U+00A0 no-break space', '\u00a0'],
    ['U+FEFF byte order mark', '\ufeff'],
    ['U+2028 line separator', '\u2028'],
    ['U+3000 ideographic space', '\u3000'],
  ])('keeps a %s around or inside the token', (_name, ch) => {
    expect(analyzeTokenText(`${ch}${T}${ch}`).token).toBe(`${ch}${T}${ch}`);
    expect(analyzeTokenText(`aaa.b${ch}bb.ccc`).token).toBe(`aaa.b${ch}bb.ccc`);
    expect(analyzeTokenText(`Bearer${ch}${T}`).stripped).not.toContain('`Bearer ` prefix');
    expect(analyzeTokenText(`\t\r\n\f ${ch}${T}`)).toMatchObject({ token: `${ch}${T}`, stripped: [] });
  });

  it('a lone prefix is not a token', () => {
    expect(analyzeTokenText('Bearer  ').token).toBe('');
  });
});
