/**
 * Decoding a compact JWS (RFC 7515 §7.1: `header.payload.signature`, each base64url without
 * padding) with errors precise enough to fix the token: which segment, which character, where.
 *
 * It decodes as much as it can: a payload that fails does not hide a header that decodes, so
 * header-based checks (alg, kid, signature) still run on a half-broken token. It never throws.
 * It does not verify anything; see signature.ts.
 */
import { isUtf8 } from 'node:buffer';
import { describeType } from './policy';

export type SegmentName = 'header' | 'payload' | 'signature';

export type DecodeProblemCode =
  'EMPTY' | 'JWE' | 'SEGMENT_COUNT' | 'EMPTY_SEGMENT' | 'BASE64URL' | 'UTF8' | 'JSON' | 'NOT_OBJECT';

export interface DecodeProblem {
  code: DecodeProblemCode;
  /** The segment at fault, when there is one. */
  segment?: SegmentName;
  message: string;
}

export interface DecodedToken {
  /** `jws`: three segments; `jwe`: five (an encrypted token); `invalid`: anything else. */
  form: 'jws' | 'jwe' | 'invalid';
  /** The raw segments when there are exactly three. */
  segments: { header: string; payload: string; signature: string } | null;
  /** The protected header (for a JWE too, when it decodes), else null. */
  header: Record<string, unknown> | null;
  payload: Record<string, unknown> | null;
  /** Length of the decoded signature in bytes; null when it did not decode. */
  signatureBytes: number | null;
  problems: DecodeProblem[];
  /** True when the token is a well-formed compact JWS with JSON-object header and payload. */
  ok: boolean;
}

const BASE64URL_CHAR = /^[A-Za-z0-9_-]$/;
const BASE64URL_TEXT = /^[A-Za-z0-9_-]*$/;

/**
 * The first reason `text` is not unpadded base64url, or null when it is. Positions are 1-based.
 *
 * @example
 * base64urlProblem('ab+c') // { index: 2, message: "'+' at position 3: …" }
 */
export function base64urlProblem(text: string): { index: number | null; message: string } | null {
  // One regex over the whole segment on the common (valid) path; the scan only names the culprit.
  if (BASE64URL_TEXT.test(text) && text.length % 4 !== 1) return null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (BASE64URL_CHAR.test(ch)) continue;
    return { index: i, message: `${describeChar(ch, text.codePointAt(i) ?? 0)} at position ${i + 1}` };
  }
  if (text.length % 4 === 1) {
    return {
      index: null,
      message: `its length, ${text.length}, is impossible for base64url (never 4k+1 characters): a character is missing or extra`,
    };
  }
  return null;
}

/** Characters a copied token often carries that print as nothing, by code point. */
const INVISIBLE: Record<number, string> = {
  0xa0: 'a no-break space',
  0x200b: 'a zero-width space',
  0x2028: 'a line separator',
  0x2029: 'a paragraph separator',
  0x3000: 'an ideographic space',
  0xfeff: 'a byte order mark',
};

function describeChar(ch: string, code: number): string {
  switch (ch) {
    case '+':
    case '/':
      return `'${ch}' (standard base64; base64url uses '-' and '_' instead of '+' and '/')`;
    case '=':
      return `'=' padding (base64url has no padding: drop the trailing '=')`;
    case ' ':
      return 'a space';
    case '\t':
      return 'a tab';
    case '\n':
    case '\r':
      return 'a line break';
    case '"':
    case "'":
      return `a quote (${ch})`;
    default: {
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      if (code < 0x20 || code === 0x7f) return `a control character (U+${hex})`;
      // Invisible when quoted: named instead. Pasted tokens pick these up from rich text.
      const named = INVISIBLE[code];
      if (named) return `${named} (U+${hex}, invisible; only ASCII white space around a token is ignored)`;
      if (/^\s$/u.test(ch))
        return `a white space character outside ASCII (U+${hex}, only ASCII white space around a token is ignored)`;
      return `'${ch}' (U+${hex})`;
    }
  }
}

/** Decodes one JSON segment; a problem names the segment. */
function decodeJsonSegment(
  name: 'header' | 'payload',
  text: string,
  offset: number,
): { value: Record<string, unknown> } | { problem: DecodeProblem } {
  if (text === '') {
    return { problem: { code: 'EMPTY_SEGMENT', segment: name, message: `${name} segment is empty` } };
  }
  const b64 = base64urlProblem(text);
  if (b64) {
    const where = b64.index === null ? '' : ` (character ${offset + b64.index + 1} of the token)`;
    return {
      problem: {
        code: 'BASE64URL',
        segment: name,
        message: `${name} segment is not base64url: ${b64.message}${where}`,
      },
    };
  }
  let json: string;
  try {
    // isUtf8 is a native check: cheaper than a fatal TextDecoder on the callbacks' hot path.
    const bytes = Buffer.from(text, 'base64url');
    if (!isUtf8(bytes)) throw new Error('not UTF-8');
    json = bytes.toString('utf8');
  } catch {
    return {
      problem: { code: 'UTF8', segment: name, message: `${name} segment does not decode to UTF-8 text` },
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      problem: {
        code: 'JSON',
        segment: name,
        message: `${name} segment is not JSON: ${why} (decoded: ${preview(json)})`,
      },
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      problem: {
        code: 'NOT_OBJECT',
        segment: name,
        message: `${name} segment is JSON but ${describeType(value)}, not an object`,
      },
    };
  }
  return { value: value as Record<string, unknown> };
}

function preview(text: string): string {
  const flat = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  return flat;
}

/**
 * Splits and decodes a compact JWS without verifying it. Never throws: every reason the token
 * is malformed is in `problems`, and whatever did decode is returned.
 *
 * @example
 * const d = decodeCompact(token);
 * if (!d.ok) console.log(d.problems.map((p) => p.message).join('; '));
 * else console.log(d.header.alg, d.payload.sub);
 */
export function decodeCompact(token: string): DecodedToken {
  const result: DecodedToken = {
    form: 'invalid',
    segments: null,
    header: null,
    payload: null,
    signatureBytes: null,
    problems: [],
    ok: false,
  };
  if (token.trim() === '') {
    result.problems.push({
      code: 'EMPTY',
      message: 'the token is empty: paste a compact JWS (three base64url segments: header.payload.signature)',
    });
    return result;
  }
  const parts = token.split('.');
  if (parts.length === 5) {
    result.form = 'jwe';
    const head = decodeJsonSegment('header', parts[0] as string, 0);
    if ('value' in head) result.header = head.value;
    const algEnc =
      result.header && typeof result.header.enc === 'string'
        ? ` (alg ${String(result.header.alg)}, enc ${result.header.enc})`
        : '';
    result.problems.push({
      code: 'JWE',
      message: `5 dot-separated segments: this is a JWE, an encrypted token${algEnc}, not a JWS; the service's tokens are signed JWS with three segments (header.payload.signature)`,
    });
    return result;
  }
  if (parts.length !== 3) {
    const n = parts.length;
    const what =
      n === 1
        ? 'no dots: a compact JWS has three base64url segments separated by dots (header.payload.signature)'
        : n === 2
          ? '2 dot-separated segments: the signature segment is missing (a compact JWS is header.payload.signature)'
          : `${n} dot-separated segments: a compact JWS has exactly three (header.payload.signature)`;
    result.problems.push({ code: 'SEGMENT_COUNT', message: what });
    // Decoded as far as it goes (issue 13): a truncated token still shows its header and payload,
    // and says which is missing. The form stays invalid, so no check treats it as a JWS.
    const [h, p] = parts as [string, string | undefined];
    if (h !== '' && n <= 4) {
      const head = decodeJsonSegment('header', h, 0);
      if ('value' in head) result.header = head.value;
      if (p !== undefined && p !== '') {
        const body = decodeJsonSegment('payload', p, h.length + 1);
        if ('value' in body) result.payload = body.value;
      }
      const missing = [
        result.header ? null : 'a header',
        result.payload ? null : 'a payload',
        'a signature',
      ].filter((x): x is string => x !== null);
      if (result.header) {
        result.problems.push({
          code: 'SEGMENT_COUNT',
          message: `decoded as far as it goes: ${result.payload ? 'the header and the payload' : 'the header'} decoded; missing: ${missing.join(', ')}`,
        });
      }
    }
    return result;
  }
  result.form = 'jws';
  const [h, p, s] = parts as [string, string, string];
  result.segments = { header: h, payload: p, signature: s };

  const head = decodeJsonSegment('header', h, 0);
  if ('value' in head) result.header = head.value;
  else result.problems.push(head.problem);

  const body = decodeJsonSegment('payload', p, h.length + 1);
  if ('value' in body) result.payload = body.value;
  else result.problems.push(body.problem);

  // An empty signature is well-formed (an unsigned token, alg "none"); the alg check refuses it.
  const sigProblem = base64urlProblem(s);
  if (sigProblem) {
    const where =
      sigProblem.index === null
        ? ''
        : ` (character ${h.length + p.length + 2 + sigProblem.index + 1} of the token)`;
    result.problems.push({
      code: 'BASE64URL',
      segment: 'signature',
      message: `signature segment is not base64url: ${sigProblem.message}${where}`,
    });
  } else {
    try {
      result.signatureBytes = Buffer.byteLength(s, 'base64url');
    } catch {
      result.problems.push({
        code: 'BASE64URL',
        segment: 'signature',
        message: 'signature segment does not decode',
      });
    }
  }
  result.ok = result.problems.length === 0;
  return result;
}
