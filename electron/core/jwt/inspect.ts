/**
 * The token inspector (DESIGN.md "inspection"): decodes any token a person pastes (a bank's
 * CX-Authorization JWT, a service X-Session-ID or session_token) and runs every check on it,
 * each passed / failed / skipped with the reason. Bad tokens and bad keys never throw: they
 * become failed checks; only an invalid InspectInput is an error, and the contract catches
 * that before this runs.
 */
import type {
  Check,
  CheckId,
  InspectInput,
  InspectReport,
  TimeClaim,
} from '../../contract/schemas/inspector';
import {
  checkAlg,
  checkExp,
  checkFlow,
  checkIat,
  checkKid,
  checkLifetime,
  checkNbf,
  checkObj,
  checkSignature,
  checkStructure,
  checkSub,
  checkUnits,
  lifetimeSeconds,
  makeCheck,
  readTimeClaim,
  withPayload,
  type LoadedKeys,
} from './checks';
import { decodeCompact } from './decode';
import { guessTextSource, loadKeySource } from './key-source';
import { LEEWAY_SECONDS } from './policy';
import { describeClaimTime, isoOrNull } from './time';

export interface InspectDeps {
  /** Used to fetch a JWKS URL. */
  fetch: typeof fetch;
  /** The clock, in milliseconds; tests pin it. */
  now?: () => number;
  /** JWKS fetch limits; defaults 5000 ms and 1 MiB. */
  jwksTimeoutMs?: number;
  jwksMaxBytes?: number;
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
  const token = input.token.trim();
  const decoded = decodeCompact(token);
  const keys = await loadKeys(input, deps);

  const checks: Check[] = [
    guard('structure', () => checkStructure(decoded)),
    guard('alg', () => checkAlg(decoded)),
    guard('kid', () => checkKid(decoded, keys)),
    await guardAsync('signature', () => checkSignature(token, decoded, keys)),
    guard('exp', () => withPayload('exp', decoded, (p) => checkExp(p, nowSeconds, LEEWAY_SECONDS))),
    guard('iat', () => withPayload('iat', decoded, (p) => checkIat(p, nowSeconds, LEEWAY_SECONDS))),
    guard('nbf', () => withPayload('nbf', decoded, (p) => checkNbf(p, nowSeconds, LEEWAY_SECONDS))),
    guard('lifetime', () => withPayload('lifetime', decoded, checkLifetime)),
    guard('units', () => withPayload('units', decoded, checkUnits)),
    guard('flow', () => withPayload('flow', decoded, checkFlow)),
    guard('obj', () => withPayload('obj', decoded, (p) => checkObj(p, input.expectedObj))),
    guard('sub', () => withPayload('sub', decoded, (p) => checkSub(p, input.expectedSub))),
  ];

  return {
    inspectedAt: isoOrNull(nowMs) ?? new Date(0).toISOString(),
    ok: checks.every((c) => c.status !== 'failed'),
    segments: decoded.segments,
    header: decoded.header,
    payload: decoded.payload,
    times: decoded.payload ? timesOf(decoded.payload, nowSeconds) : [],
    lifetimeSeconds: decoded.payload ? lifetimeSeconds(decoded.payload) : null,
    keys: describeKeys(input, keys),
    checks,
  };
}

async function loadKeys(input: InspectInput, deps: InspectDeps): Promise<LoadedKeys> {
  try {
    const set = await loadKeySource(input.keySource, {
      fetch: deps.fetch,
      ...(deps.jwksTimeoutMs !== undefined ? { timeoutMs: deps.jwksTimeoutMs } : {}),
      ...(deps.jwksMaxBytes !== undefined ? { maxBytes: deps.jwksMaxBytes } : {}),
    });
    return set ? { set, error: null } : { set: null, error: null };
  } catch (err) {
    return { set: null, error: err instanceof Error ? err.message : String(err) };
  }
}

function describeKeys(input: InspectInput, keys: LoadedKeys): InspectReport['keys'] {
  if (keys.set) return { source: keys.set.source, description: keys.set.description, kids: keys.set.kids };
  const source = input.keySource;
  if (!source || source.type === 'none') return { source: 'none', description: 'no key given', kids: [] };
  const kind = source.type === 'jwks-url' ? 'jwks-url' : guessTextSource(source.text);
  const what = source.type === 'jwks-url' ? `JWKS URL ${source.url}` : 'the pasted key';
  const error = keys.error ?? 'unknown error';
  return { source: kind, description: `${what} could not be loaded`, kids: [], error };
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

/** A bug in one check must not lose the others: it becomes that check's failure. */
function guard(id: CheckId, run: () => Check): Check {
  try {
    return run();
  } catch (err) {
    return internalFailure(id, err);
  }
}

async function guardAsync(id: CheckId, run: () => Promise<Check>): Promise<Check> {
  try {
    return await run();
  } catch (err) {
    return internalFailure(id, err);
  }
}

function internalFailure(id: CheckId, err: unknown): Check {
  return makeCheck(
    id,
    'failed',
    `internal error while checking: ${err instanceof Error ? err.message : String(err)}`,
  );
}
