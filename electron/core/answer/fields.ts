/**
 * The rules on the members of a bank's answer (spec 2.5, 2.6, 8; DESIGN.md "One judge of the
 * bank's answer"), one function each, for the answer judge (judge.ts) to run in order. Each
 * returns the check's status and, unless the caller is on a hot path (`lean`), its words: a
 * failure says what failed ("phone missing"), never the check's title. Pure; never throws.
 *
 * The user secret `key` (spec 2.5, 5.7) is never quoted: its failures and its pass name its type
 * and length only, since a check's detail is stored and shown.
 */
import type { CheckStatus } from '../../contract/schemas/inspector';

/** Spec 2.5 and 8: external_id is up to 500 symbols, counted as Unicode code points. */
export const EXTERNAL_ID_MAX_CODE_POINTS = 500;

/** Spec 2.5: the optional members; when present they are strings (null counts as absent). */
export const OPTIONAL_FIELDS = ['first_name', 'last_name', 'email'] as const;

/** A rule's finding: its status, its words ('' when lean and passed), and a warning if any. */
export interface Finding {
  status: CheckStatus;
  detail: string;
  warning?: string;
}

/** Lean mode's pass, without words: shared and frozen, so a passing rule allocates nothing. */
export const LEAN_PASS: Finding = Object.freeze({ status: 'passed', detail: '' });
/** Blank is empty or only whitespace (the whitespace String.prototype.trim removes). */
const ONLY_WHITESPACE = /^\s*$/;

/**
 * Unicode code points in `s`: a surrogate pair is one, a lone surrogate one, as `[...s].length`
 * counts them, without building the array (the console's own bank judges every answer it sends).
 *
 * @example
 * codePoints('😀'.repeat(500)); // 500 (1,000 UTF-16 units)
 */
export function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** "a number (7)", "null", "an array", "an object", "a boolean (true)"; values shown only when `show`. */
export function describeValue(v: unknown, show = true): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (!show) return `a ${typeof v}`;
  return `a ${typeof v} (${clip(String(v), 40)})`;
}

/** A value for a detail, cut to `max` characters. */
export function clip(s: string, max = 60): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/**
 * A required string member (external_id, key, phone: spec 2.5, 2.6, 8): present, a string, not
 * empty or only whitespace. `secret`: never quote the value (the user secret `key`).
 */
export function requiredString(
  body: Record<string, unknown>,
  name: 'external_id' | 'key' | 'phone',
  lean: boolean,
  secret = false,
): Finding {
  if (!Object.hasOwn(body, name)) return { status: 'failed', detail: `${name} missing` };
  const v = body[name];
  if (typeof v !== 'string') {
    return { status: 'failed', detail: `${name} is ${describeValue(v, !secret)}, not a string` };
  }
  if (v.length === 0) return { status: 'failed', detail: `${name} is an empty string` };
  if (ONLY_WHITESPACE.test(v)) {
    return {
      status: 'failed',
      detail: `${name} is only whitespace (${v.length} character${v.length === 1 ? '' : 's'})`,
    };
  }
  if (lean) return LEAN_PASS;
  const n = codePoints(v);
  return {
    status: 'passed',
    detail: secret
      ? `${name} present (${n} character${n === 1 ? '' : 's'}, not shown)`
      : `${name} ${JSON.stringify(clip(v))}`,
  };
}

/** external_id at most 500 code points (spec 2.5, 8); skipped when it is not a string. */
export function externalIdLength(body: Record<string, unknown>, lean: boolean): Finding {
  const v = body.external_id;
  if (typeof v !== 'string') {
    return { status: 'skipped', detail: 'not judged: external_id is not a string' };
  }
  const n = codePoints(v);
  if (n > EXTERNAL_ID_MAX_CODE_POINTS) {
    return {
      status: 'failed',
      detail: `external_id is ${n} code points long: over the ${EXTERNAL_ID_MAX_CODE_POINTS} spec 2.5 and 8 allow`,
    };
  }
  if (lean) return LEAN_PASS;
  return {
    status: 'passed',
    detail: `external_id is ${n} code point${n === 1 ? '' : 's'} long (at most ${EXTERNAL_ID_MAX_CODE_POINTS})`,
  };
}

/**
 * first_name, last_name and email, when present, are strings (spec 2.5). null counts as absent,
 * with a warning: a strict client may refuse it.
 */
export function optionalFields(body: Record<string, unknown>, lean: boolean): Finding {
  let wrong: string[] | null = null;
  let nulls: string[] | null = null;
  for (const name of OPTIONAL_FIELDS) {
    if (!Object.hasOwn(body, name)) continue;
    const v = body[name];
    if (typeof v === 'string') continue;
    if (v === null) (nulls ??= []).push(name);
    else (wrong ??= []).push(`${name} is ${describeValue(v)}, not a string`);
  }
  const warning = nulls
    ? `${nulls.join(', ')} ${nulls.length === 1 ? 'is' : 'are'} null: counted as absent (spec 2.5: an optional string; leave it out rather than send null)`
    : undefined;
  if (wrong) return { status: 'failed', detail: wrong.join('; '), ...(warning ? { warning } : {}) };
  if (lean && !warning) return LEAN_PASS;
  const present = OPTIONAL_FIELDS.filter((name) => typeof body[name] === 'string');
  const words =
    present.length > 0
      ? `${present.join(', ')}: string${present.length === 1 ? '' : 's'}`
      : 'no first_name, last_name or email (each optional)';
  return {
    status: 'passed',
    detail: warning ? `${words}; ${warning}` : words,
    ...(warning ? { warning } : {}),
  };
}
