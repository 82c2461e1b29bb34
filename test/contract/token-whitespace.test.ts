/**
 * The white space a token loses, written once in the contract (issue 24 item 11): a header value
 * only SP and HTAB (RFC 9110 §5.5), a pasted token only ASCII white space (WHATWG Infra).
 */
import { describe, expect, it } from 'vitest';
import {
  isAsciiWhitespace,
  trimAsciiWhitespace,
  trimHttpWhitespace,
} from '../../electron/contract/schemas/token-whitespace';

const UNICODE_SPACES = ['\u00a0', '\ufeff', '\u2028', '\u3000', '\u0085', '\u000b'];

describe('token white space', () => {
  it('a header value loses SP and HTAB at its ends, nothing else', () => {
    expect(trimHttpWhitespace(' \t a.b.c\t ')).toBe('a.b.c');
    for (const ch of [...UNICODE_SPACES, '\r', '\n', '\f']) {
      expect(trimHttpWhitespace(`${ch}a.b.c${ch}`)).toBe(`${ch}a.b.c${ch}`);
    }
    expect(trimHttpWhitespace('a b')).toBe('a b');
    const same = 'eyJ.eyJ.sig';
    expect(trimHttpWhitespace(same)).toBe(same);
  });

  it('a pasted token loses TAB, LF, FF, CR and SPACE at its ends, nothing else', () => {
    expect(trimAsciiWhitespace('\t\n\f\r a.b.c \r\n')).toBe('a.b.c');
    for (const ch of UNICODE_SPACES) expect(trimAsciiWhitespace(` ${ch}a.b.c${ch} `)).toBe(`${ch}a.b.c${ch}`);
    expect(['\t', '\n', '\f', '\r', ' '].every(isAsciiWhitespace)).toBe(true);
    expect([...UNICODE_SPACES, 'a', '', '  '].some(isAsciiWhitespace)).toBe(false);
  });
});
