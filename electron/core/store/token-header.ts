/**
 * What a stored event keeps of a callback token's JOSE header (records.ts): the kid a search
 * finds it by, and the bounded header a compact record keeps. Decodes only the header segment
 * of a raw X-Session-ID, never verifies anything (the token engine does, jwt/engine.ts).
 * Plain functions: the writer worker's bundle imports them.
 */
import type { EventDetail } from '../../contract/schemas/events';

/** `text` cut to `keep` characters with an ellipsis (null stays null): how stored records cut free text. */
export function cut(text: string | null | undefined, keep: number): string | null {
  if (text === null || text === undefined) return null;
  return text.length <= keep ? text : `${text.slice(0, keep)}…`;
}

/**
 * The kids of recently seen JWS header segments: a bank's callbacks carry a handful of distinct
 * headers (one per service key), so recording one looks its kid up instead of decoding it again
 * (decoding was a fifth of what making a callback's row cost). Bounded: cleared when full.
 */
const kidByHeader = new Map<string, string | null>();
const KID_CACHE_MAX = 256;

/** The first segment of a raw X-Session-ID (the JOSE header, base64url), or null. */
function headerSegment(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const token = raw.trim();
  const dot = token.indexOf('.');
  return dot < 0 ? token : token.slice(0, dot);
}

/** What a header segment decodes to (anything JSON), or null. */
function decodeSegment(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

/** The kid a callback's token names: from the decoded token, else the raw X-Session-ID's header. */
export function kidOf(e: EventDetail): string | null {
  const decoded = e.token?.header?.kid;
  if (typeof decoded === 'string') return decoded;
  const segment = headerSegment(e.request?.headers['x-session-id']);
  if (segment === null) return null;
  let kid = kidByHeader.get(segment);
  if (kid !== undefined) return kid;
  const k = (decodeSegment(segment) as { kid?: unknown } | null)?.kid;
  kid = typeof k === 'string' ? k : null;
  if (segment.length <= 1024) {
    if (kidByHeader.size >= KID_CACHE_MAX) kidByHeader.clear();
    kidByHeader.set(segment, kid);
  }
  return kid;
}

/** A compact record keeps at most this much of a token's header (its JSON, in characters). */
const COMPACT_HEADER_CHARS = 512;
/** The members of a JOSE header a compact record keeps when the whole header is too long. */
const HEADER_MEMBERS = ['alg', 'kid', 'typ', 'cty', 'crit'] as const;

/**
 * The token's JOSE header for a compact record: the decoded one, or the raw X-Session-ID's first
 * segment decoded; whole when its JSON fits in 512 characters, else only alg, kid, typ, cty and crit,
 * each cut, and a note saying so. Null when there is no token or its header is not a JSON object.
 */
export function compactTokenHeader(
  e: EventDetail,
): { header: Record<string, unknown>; note: string | null } | null {
  // A raw header is at most 16 KiB (the listener's limit): decoded once, then cut below.
  const segment = e.token?.header ? null : headerSegment(e.request?.headers['x-session-id']);
  const header: unknown = e.token?.header ?? (segment === null ? null : decodeSegment(segment));
  if (!header || typeof header !== 'object' || Array.isArray(header)) return null;
  const text = JSON.stringify(header);
  if (text.length <= COMPACT_HEADER_CHARS) return { header: header as Record<string, unknown>, note: null };
  const kept: Record<string, unknown> = {};
  for (const name of HEADER_MEMBERS) {
    const v = (header as Record<string, unknown>)[name];
    if (v === undefined) continue;
    const json = JSON.stringify(v) ?? '';
    kept[name] = typeof v === 'string' ? cut(v, 64) : json.length <= 64 ? v : `${json.slice(0, 64)}…`;
  }
  return {
    header: kept,
    note: `the header was ${text.length} characters of JSON: only ${HEADER_MEMBERS.join(', ')} kept`,
  };
}
