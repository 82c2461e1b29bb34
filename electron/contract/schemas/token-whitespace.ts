/**
 * Which white space around a token is not part of it, written once for every layer (issue 24
 * item 11). It lives in the contract, the layer everything may import, so the engine, the
 * inspector, `jwt inspect` and the Inspector page draw the line in the same place.
 *
 * - A header value (X-Session-ID, CX-Authorization) loses only SP and HTAB at its ends: HTTP's
 *   optional white space (RFC 9110 §5.5, §5.6.3). A 0xA0 octet there is part of the value (Node
 *   reads header octets as latin1, so it arrives as U+00A0, which String.prototype.trim would
 *   remove): the token then fails `structure`, as at any HTTP verifier.
 * - A pasted token (`jwt inspect TOKEN`, its stdin, the Inspector page) loses only ASCII white
 *   space (WHATWG Infra: TAB, LF, FF, CR, SPACE), the white space of terminals and copied lines.
 *   U+00A0, U+FEFF, U+2028, U+3000 and the like stay, so such a token fails `structure` naming
 *   the character, exactly as the endpoints would judge it: the inspector never passes a token
 *   the bank refuses.
 */

const SP = 0x20;
const HTAB = 0x09;

const isOws = (code: number) => code === SP || code === HTAB;
/** TAB, LF, FF, CR or SPACE (WHATWG Infra "ASCII whitespace"). */
const isAsciiSpaceCode = (code: number) => isOws(code) || code === 0x0a || code === 0x0c || code === 0x0d;

/** Whether `ch` is one ASCII white space character: TAB, LF, FF, CR or SPACE (WHATWG Infra). */
export function isAsciiWhitespace(ch: string): boolean {
  return ch.length === 1 && isAsciiSpaceCode(ch.charCodeAt(0));
}

function trimWith(value: string, drop: (code: number) => boolean): string {
  let start = 0;
  let end = value.length;
  while (start < end && drop(value.charCodeAt(start))) start++;
  while (end > start && drop(value.charCodeAt(end - 1))) end--;
  // The common case (nothing to drop) hands back the same string: the callbacks' hot path.
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/**
 * A header value without the SP and HTAB at its ends (RFC 9110 §5.5), nothing else removed.
 *
 * @example
 * trimHttpWhitespace(' \teyJ… ') // 'eyJ…'
 * trimHttpWhitespace('\u00a0eyJ…') // '\u00a0eyJ…' (a 0xA0 octet is part of the value)
 */
export function trimHttpWhitespace(value: string): string {
  return trimWith(value, isOws);
}

/**
 * A pasted token without the ASCII white space at its ends, nothing else removed.
 *
 * @example
 * trimAsciiWhitespace('eyJ…\r\n') // 'eyJ…'
 * trimAsciiWhitespace('\ufeffeyJ…') // '\ufeffeyJ…'
 */
export function trimAsciiWhitespace(value: string): string {
  return trimWith(value, isAsciiSpaceCode);
}
