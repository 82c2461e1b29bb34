/**
 * What the engineer pastes is rarely the bare token: it comes from a header dump
 * (`CX-Authorization: Bearer eyJ…`, `X-Session-ID: eyJ…`), a JSON body (`"eyJ…"`), or a log line
 * wrapped over several lines. The UI strips these wrappers before inspecting and says what it
 * stripped, and it colours the raw text the same way so the engineer sees exactly what is sent.
 *
 * White space here is ASCII white space only, the same line `jwt inspect` draws (contract
 * token-whitespace.ts): a U+00A0, U+FEFF, U+2028 or U+3000 stays in the token, which then fails
 * `structure` naming the character, as the bank endpoints would judge it.
 */
import { isAsciiWhitespace } from '../../electron/contract/schemas/token-whitespace';

export type RunKind = 'ignored' | 'header' | 'payload' | 'signature' | 'extra' | 'dot';

export interface TextRun {
  kind: RunKind;
  text: string;
}

export interface TokenText {
  /** The compact token that is sent for inspection ('' when there is none). */
  token: string;
  /** What was removed, in words ("`Bearer ` prefix", "2 line breaks"…). */
  stripped: string[];
  /** The raw text split into coloured runs (concatenated they give back the raw text). */
  runs: TextRun[];
}

/** ASCII white space as a regex class (isAsciiWhitespace's five characters). */
const WS = '[\\t\\n\\f\\r ]';
const HEADER_NAME = new RegExp(
  `^["']?(CX-Authorization|X-Session-ID|Authorization|session_token)["']?${WS}*[:=]${WS}*`,
  'i',
);
const BEARER = new RegExp(`^Bearer(?:${WS}+|$)`, 'i');
const QUOTES = new Set(['"', "'", '`']);
const SEGMENT_KINDS: RunKind[] = ['header', 'payload', 'signature'];

function pushRun(runs: TextRun[], kind: RunKind, text: string) {
  if (text === '') return;
  const last = runs.at(-1);
  if (last && last.kind === kind) last.text += text;
  else runs.push({ kind, text });
}

export function analyzeTokenText(raw: string): TokenText {
  const stripped: string[] = [];
  let start = 0;
  let end = raw.length;
  const skipSpace = () => {
    while (start < end && isAsciiWhitespace(raw[start]!)) start++;
  };

  const trimEnd = () => {
    while (end > start && isAsciiWhitespace(raw[end - 1]!)) end--;
  };
  const note = (what: string) => {
    if (!stripped.includes(what)) stripped.push(what);
  };

  // Wrappers nest in any order (`"CX-Authorization": "Bearer eyJ…",`): peel until none is left.
  for (let changed = true; changed;) {
    changed = false;
    skipSpace();
    trimEnd();
    const header = HEADER_NAME.exec(raw.slice(start, end));
    if (header) {
      note(`\`${header[1]}:\` header name`);
      start += header[0].length;
      changed = true;
      continue;
    }
    const bearer = BEARER.exec(raw.slice(start, end));
    if (bearer) {
      note('`Bearer ` prefix');
      start += bearer[0].length;
      changed = true;
      continue;
    }
    // A trailing comma or semicolon from a copied JSON line or header list.
    if (end > start && /[,;]/.test(raw[end - 1]!)) {
      note(`trailing \`${raw[end - 1]}\``);
      end--;
      changed = true;
      continue;
    }
    const open = raw[start];
    if (open !== undefined && QUOTES.has(open) && end - start >= 2 && raw[end - 1] === open) {
      note('quotes');
      start++;
      end--;
      changed = true;
    }
  }

  const runs: TextRun[] = [];
  pushRun(runs, 'ignored', raw.slice(0, start));
  let token = '';
  let dots = 0;
  let inner = 0;
  for (let i = start; i < end; i++) {
    const ch = raw[i]!;
    if (isAsciiWhitespace(ch)) {
      inner++;
      pushRun(runs, 'ignored', ch);
    } else if (ch === '.') {
      dots++;
      token += ch;
      pushRun(runs, 'dot', ch);
    } else {
      token += ch;
      pushRun(runs, SEGMENT_KINDS[dots] ?? 'extra', ch);
    }
  }
  pushRun(runs, 'ignored', raw.slice(end));
  if (inner > 0) stripped.push(`${inner} whitespace character${inner === 1 ? '' : 's'} inside`);
  return { token, stripped, runs };
}

/** Segment lengths of a compact token, for the line under the editor. */
export function segmentLengths(token: string): number[] {
  return token === '' ? [] : token.split('.').map((s) => s.length);
}
