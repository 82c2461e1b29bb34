/**
 * The token inspector (DESIGN.md "inspection"): decodes any token a person pastes (a bank's
 * CX-Authorization JWT, a service X-Session-ID or session_token) and runs every check on it,
 * each passed / failed / skipped with the reason. Bad tokens and bad keys never throw: they
 * become failed checks; only an invalid InspectInput is an error, and the contract catches
 * that before this runs.
 */
import type { Advice, Check, InspectInput, InspectReport, TimeClaim } from '../../contract/schemas/inspector';
import { trimAsciiWhitespace } from '../../contract/schemas/token-whitespace';
import { checkLifetime, checkUnits, lifetimeSeconds, readTimeClaim, withPayload } from './checks';
import { equalsJudge, verifyToken, type EngineKeys } from './engine';
import { decodeCompact } from './decode';
import { JWKS_TIMEOUT_MS } from './fetch-jwks';
import { sharedJwksClient } from './jwks-shared';
import { guessTextSource, keySetFromText, type KeySet } from './key-source';
import { describeClaimTime, isoOrNull } from './time';

export interface InspectDeps {
  /** Used to fetch a JWKS URL. */
  fetch: typeof fetch;
  /** The clock, in milliseconds; tests pin it. */
  now?: () => number;
  /** How long to wait for a JWKS URL's keys (default 5000 ms); the 1 MiB cap is the JWKS client's. */
  jwksTimeoutMs?: number;
}

/**
 * Inspects a token: decoded header and claims, times relative to now, and every check.
 *
 * @example
 * const report = await inspectToken(
 *   { token, keySource: { type: 'jwks-url', url }, expectedObj: 'DE02…', expectedSub: 'ops@bank' },
 *   { fetch },
 * );
 * report.ok; // true when no check failed
 * report.checks.filter((c) => c.status === 'failed').map((c) => `${c.id}: ${c.detail}`);
 */
export async function inspectToken(input: InspectInput, deps: InspectDeps): Promise<InspectReport> {
  const nowMs = (deps.now ?? Date.now)();
  const nowSeconds = nowMs / 1000;
  // A pasted token often carries a trailing newline or spaces; inside the token they are errors.
  // Only ASCII white space goes: a U+00A0 or U+FEFF stays and fails structure, as at the bank.
  const token = trimAsciiWhitespace(input.token);
  const keys = await loadKeys(input, deps, token);
  const verdict = await verifyToken({
    token,
    header: 'token',
    emptyDetail:
      'the token is empty: paste a compact JWS (three base64url segments: header.payload.signature)',
    keys: keys.engine,
    nowSeconds,
    ...(input.expectedObj !== undefined ? { obj: equalsJudge('obj', input.expectedObj) } : {}),
    ...(input.expectedSub !== undefined ? { sub: equalsJudge('sub', input.expectedSub) } : {}),
    mode: 'all',
  });
  const decoded = verdict.decoded;
  const payload = decoded?.payload ?? null;
  const checks: Check[] = verdict.checks.filter((c) => c.id !== 'present' || c.status === 'failed');

  return {
    inspectedAt: isoOrNull(nowMs) ?? new Date(0).toISOString(),
    ok: verdict.ok,
    segments: decoded?.segments ?? null,
    header: decoded?.header ?? null,
    payload,
    times: payload ? timesOf(payload, nowSeconds) : [],
    lifetimeSeconds: payload ? lifetimeSeconds(payload) : null,
    keys: describeKeys(input, keys.set, keys.error),
    checks,
    advice: decoded ? adviceOf(decoded) : [],
  };
}

/** The inspector's advice: never a verdict, only what is worth knowing. */
function adviceOf(decoded: NonNullable<Awaited<ReturnType<typeof verifyToken>>['decoded']>): Advice[] {
  const advice: Advice[] = [];
  for (const check of [
    withPayload('lifetime', decoded, checkLifetime),
    withPayload('units', decoded, checkUnits),
  ]) {
    if (check.status === 'skipped') continue;
    advice.push({
      id: check.id as Advice['id'],
      title: check.title,
      level: check.status === 'failed' ? 'warning' : 'ok',
      detail: check.detail,
    });
  }
  return advice;
}

async function loadKeys(
  input: InspectInput,
  deps: InspectDeps,
  token: string,
): Promise<{ engine: EngineKeys; set: KeySet | null; error: string | null }> {
  const source = input.keySource;
  if (source?.type === 'jwks-url') {
    // The shared client of this URL: its cache, same-origin redirects, 1 MiB, one fetch a second.
    const header = decodeCompact(token).header;
    const kid = typeof header?.kid === 'string' ? header.kid : undefined;
    // The deadline is on the shared client's clock (the wall clock), not the inspection's.
    const found = await sharedJwksClient(source.url, deps.fetch).keySetFor(
      kid,
      Date.now() + (deps.jwksTimeoutMs ?? JWKS_TIMEOUT_MS),
    );
    const { set, detail } = found;
    if (!set) {
      const error = found.state.error ?? detail ?? 'no key set';
      return { engine: { kind: 'unavailable', detail: detail ?? error }, set: null, error };
    }
    return { engine: { kind: 'lookup', forKid: () => ({ set, detail }) }, set, error: null };
  }
  try {
    // A JWKS URL went through the shared client above; what is left is pasted text or nothing.
    const set = source?.type === 'text' ? await keySetFromText(source.text) : null;
    return set
      ? { engine: { kind: 'set', set }, set, error: null }
      : { engine: { kind: 'none' }, set: null, error: null };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return {
      engine: { kind: 'unavailable', detail: `the key source could not be loaded: ${error}` },
      set: null,
      error,
    };
  }
}

function describeKeys(input: InspectInput, set: KeySet | null, error: string | null): InspectReport['keys'] {
  if (set) return { source: set.source, description: set.description, kids: set.kids };
  const source = input.keySource;
  if (!source || source.type === 'none') return { source: 'none', description: 'no key given', kids: [] };
  const kind = source.type === 'jwks-url' ? 'jwks-url' : guessTextSource(source.text);
  const what = source.type === 'jwks-url' ? `JWKS URL ${source.url}` : 'the pasted key';
  return {
    source: kind,
    description: `${what} could not be loaded`,
    kids: [],
    error: error ?? 'unknown error',
  };
}

function timesOf(payload: Record<string, unknown>, nowSeconds: number): TimeClaim[] {
  const times: TimeClaim[] = [];
  for (const name of ['iat', 'exp', 'nbf'] as const) {
    const r = readTimeClaim(payload, name);
    if (r.state !== 'number') continue;
    const iso = isoOrNull(r.seconds * 1000);
    const relative = iso === null ? null : describeClaimTime(name, r.seconds - nowSeconds);
    times.push({
      name,
      value: r.value,
      unit: r.unit,
      iso,
      relative: relative !== null && r.unit === 'ms' ? `${relative}, if read as milliseconds` : relative,
    });
  }
  return times;
}
