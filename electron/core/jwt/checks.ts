/**
 * The token checks, one function each: the rules of DESIGN.md "Bank endpoints" that engine.ts
 * runs in order for every consumer (bank endpoints, sandbox, inspector, conformance). Each
 * returns a Check (passed / failed / skipped) whose detail says what was found and what to do.
 * They are pure (the clock comes in as `nowSeconds`) and never throw. The inspector's advice
 * (lifetime, units) is here too; advice never changes a verdict.
 */
import type { Check, CheckStatus, TokenCheckId } from '../../contract/schemas/inspector';
import type { DecodedToken } from './decode';
import {
  describeType,
  GUIDE_FLOWS,
  isBlankClaim,
  judgeAlg,
  LEEWAY_SECONDS,
  MAX_BANK_JWT_LIFETIME_SECONDS,
  SIGN_IN_FLOW,
} from './policy';
import {
  describeClaimTime,
  formatDuration,
  isoOrNull,
  timeUnit,
  yearOfSeconds,
  type TimeClaimName,
} from './time';

/** The token checks' titles; the answer's checks have theirs in core/answer (issue 24). */
export const CHECK_TITLES: Record<TokenCheckId, string> = {
  present: 'X-Session-ID present',
  structure: 'Structure',
  alg: 'Algorithm (alg)',
  crit: 'Critical extensions (crit)',
  kid: 'Key ID (kid)',
  signature: 'Signature',
  exp: 'Expiry (exp)',
  iat: 'Issued at (iat)',
  nbf: 'Not before (nbf)',
  lifetime: 'Lifetime (exp - iat)',
  units: 'Time units',
  flow: 'Flow',
  obj: 'Object (obj)',
  sub: 'Subject (sub)',
};

export function makeCheck(id: TokenCheckId, status: CheckStatus, detail: string): Check {
  return { id, title: CHECK_TITLES[id], status, detail };
}

const NOT_JWS = 'not checked: the input is not a compact JWS (see structure)';
const NO_HEADER = 'not checked: the header could not be decoded (see structure)';
const NO_PAYLOAD = 'not checked: the payload could not be decoded (see structure)';

/** The header when the token is a JWS whose header decoded; else the reason to skip. */
function headerOf(decoded: DecodedToken): Record<string, unknown> | string {
  if (decoded.form !== 'jws') return NOT_JWS;
  return decoded.header ?? NO_HEADER;
}
function payloadOf(decoded: DecodedToken): Record<string, unknown> | string {
  if (decoded.form !== 'jws') return NOT_JWS;
  return decoded.payload ?? NO_PAYLOAD;
}

// ---------------------------------------------------------------------------------- structure

export function checkStructure(decoded: DecodedToken): Check {
  if (!decoded.ok) return makeCheck('structure', 'failed', decoded.problems.map((p) => p.message).join('; '));
  const sig =
    decoded.signatureBytes === 0
      ? 'the signature segment is empty (an unsigned token)'
      : `signature of ${decoded.signatureBytes} bytes`;
  return makeCheck(
    'structure',
    'passed',
    `three base64url segments; header and payload are JSON objects; ${sig}`,
  );
}

// ---------------------------------------------------------------------------------------- alg

export function checkAlg(decoded: DecodedToken): Check {
  const header = headerOf(decoded);
  if (typeof header === 'string') return makeCheck('alg', 'skipped', header);
  const verdict = judgeAlg(header.alg);
  return makeCheck('alg', verdict.ok ? 'passed' : 'failed', verdict.message);
}

// --------------------------------------------------------------------------------------- crit

/**
 * RFC 7515 §4.1.11: a recipient that does not understand an extension listed in `crit` must
 * reject the JWS. The console understands no extension, so any `crit` (even an empty list,
 * which the RFC forbids) fails.
 */
export function checkCrit(decoded: DecodedToken): Check {
  const header = headerOf(decoded);
  if (typeof header === 'string') return makeCheck('crit', 'skipped', header);
  if (!Object.hasOwn(header, 'crit')) return makeCheck('crit', 'passed', 'no crit header parameter');
  const crit = header.crit;
  const named = Array.isArray(crit) ? crit.map((c) => JSON.stringify(c)).join(', ') : null;
  return makeCheck(
    'crit',
    'failed',
    named
      ? `crit names extensions the verifier must understand (${named || 'an empty list'}); the console understands none, so the token is refused (RFC 7515 §4.1.11)`
      : `crit is ${describeType(crit)}, not a list of extension names; refused (RFC 7515 §4.1.11)`,
  );
}

// -------------------------------------------------------------------------------------- times

/** A time claim as read from the payload. */
export type TimeReading =
  | { state: 'absent' }
  | { state: 'not-a-number'; value: unknown }
  /** `seconds` is the value as seconds, i.e. divided by 1000 when `unit` is ms. */
  | { state: 'number'; value: number; unit: 's' | 'ms'; seconds: number };

export function readTimeClaim(payload: Record<string, unknown>, name: TimeClaimName): TimeReading {
  if (!Object.hasOwn(payload, name)) return { state: 'absent' };
  const value = payload[name];
  if (typeof value !== 'number' || !Number.isFinite(value)) return { state: 'not-a-number', value };
  const unit = timeUnit(value);
  return { state: 'number', value, unit, seconds: unit === 'ms' ? value / 1000 : value };
}

function shownValue(value: unknown): string {
  const json = JSON.stringify(value);
  return json === undefined ? String(value) : json.length > 40 ? `${json.slice(0, 40)}…` : json;
}

/** "2023-11-14T22:13:20.000Z" or "a time no date can hold". */
function isoText(seconds: number): string {
  return isoOrNull(seconds * 1000) ?? 'a time no date can hold';
}

/**
 * The shared failure of a time claim: not an integer number of seconds (spec 2.4, RFC 7519
 * NumericDate). A value that looks like milliseconds is still judged as seconds, as every
 * verifier reads it; the note says so, and the units advice explains.
 */
function timeClaimProblem(name: TimeClaimName, reading: TimeReading): string | null {
  if (reading.state === 'not-a-number') {
    return `${name} is ${describeType(reading.value)} (${shownValue(reading.value)}), not a number: spec 2.4 wants an integer Unix time in seconds`;
  }
  if (reading.state === 'number' && !Number.isInteger(reading.value)) {
    return `${name} is ${reading.value}, not a whole number of seconds: spec 2.4 wants an integer`;
  }
  return null;
}

/** "; it looks like milliseconds (…)" when the value does, else "". */
function millisecondsNote(name: TimeClaimName, reading: TimeReading, nowSeconds: number): string {
  if (reading.state !== 'number' || reading.unit !== 'ms') return '';
  const meaning = describeClaimTime(name, reading.seconds - nowSeconds);
  return `; ${name} ${reading.value} looks like milliseconds (as milliseconds: ${meaning}, ${isoText(reading.seconds)}); read as seconds, as every verifier reads it: ${yearOfSeconds(reading.value)} (see units)`;
}

/**
 * How a time claim is judged (spec 2.4; RFC 7519 4.1.4-4.1.6): what a missing one becomes (exp
 * and iat are required, nbf optional), which side of now is valid, and the words for a value
 * within or beyond the leeway.
 */
interface TimeRule {
  absent: Check;
  /** Valid without the leeway: exp in the future, iat and nbf now or in the past. */
  valid(delta: number): boolean;
  /** Valid only thanks to the leeway. */
  withinLeeway(delta: number, leeway: number): boolean;
  within: string;
  beyond(leeway: number): string;
}

const TIME_RULES: Record<TimeClaimName, TimeRule> = {
  exp: {
    absent: makeCheck(
      'exp',
      'failed',
      'no exp claim: the token would never expire; spec 2.4 requires exp (Unix time in seconds)',
    ),
    valid: (delta) => delta > 0,
    withinLeeway: (delta, leeway) => delta + leeway > 0,
    within: ', within the',
    beyond: (leeway) => `, beyond the ${leeway} s leeway`,
  },
  iat: {
    absent: makeCheck('iat', 'failed', 'no iat claim: spec 2.4 requires iat (Unix time in seconds)'),
    valid: (delta) => delta <= 0,
    withinLeeway: (delta, leeway) => delta <= leeway,
    within: ': in the future, but within the',
    beyond: (leeway) =>
      `: in the future beyond the ${leeway} s leeway; is the signer's clock ahead, or iat set to a later time?`,
  },
  nbf: {
    absent: makeCheck('nbf', 'skipped', 'no nbf claim (it is optional)'),
    valid: (delta) => delta <= 0,
    withinLeeway: (delta, leeway) => delta <= leeway,
    within: ': within the',
    beyond: (leeway) => `: not valid yet, beyond the ${leeway} s leeway`,
  },
};

/**
 * One time check by its rule: the claim read; a missing one judged by the rule; one that is not
 * an integer of seconds failed; else passed or failed by its distance from now and the leeway,
 * in words that say when it is (with the milliseconds note when it looks like ms).
 */
function checkTime(
  name: TimeClaimName,
  payload: Record<string, unknown>,
  nowSeconds: number,
  leeway: number,
): Check {
  const rule = TIME_RULES[name];
  const r = readTimeClaim(payload, name);
  if (r.state === 'absent') return { ...rule.absent };
  const problem = timeClaimProblem(name, r);
  if (problem || r.state !== 'number') return makeCheck(name, 'failed', problem ?? `${name} is not a number`);
  const delta = r.value - nowSeconds;
  const text = `${describeClaimTime(name, delta)} (${isoText(r.value)})${millisecondsNote(name, r, nowSeconds)}`;
  if (rule.valid(delta)) return makeCheck(name, 'passed', text);
  if (rule.withinLeeway(delta, leeway)) {
    return makeCheck(name, 'passed', `${text}${rule.within} ${leeway} s leeway`);
  }
  return makeCheck(name, 'failed', `${text}${rule.beyond(leeway)}`);
}

/** The exported check of one time claim (the leeway defaults to LEEWAY_SECONDS). */
function timeCheckOf(name: TimeClaimName) {
  return (payload: Record<string, unknown>, nowSeconds: number, leeway = LEEWAY_SECONDS): Check =>
    checkTime(name, payload, nowSeconds, leeway);
}

/** Spec 2.4: exp is required and must be in the future (within the leeway). */
export const checkExp = timeCheckOf('exp');
/** Spec 2.4: iat is required and must not be in the future (beyond the leeway). */
export const checkIat = timeCheckOf('iat');
/** RFC 7519 4.1.5: nbf is optional; when present the token is not valid before it (within the leeway). */
export const checkNbf = timeCheckOf('nbf');

/** exp - iat in seconds (each read in its own unit), or null when either is not a number. */
export function lifetimeSeconds(payload: Record<string, unknown>): number | null {
  const iat = readTimeClaim(payload, 'iat');
  const exp = readTimeClaim(payload, 'exp');
  if (iat.state !== 'number' || exp.state !== 'number') return null;
  return exp.seconds - iat.seconds;
}

/**
 * The words for a lifetime of zero or less, written once for the inspector's advice and the
 * sandbox's lifetime check. The service guide's own sample has iat = exp; DESIGN.md caps the
 * lifetime only from above ("Sandbox service": at most 1 hour), so such a token is judged by exp
 * (with the leeway) like any other, and advised on, never refused for its lifetime.
 */
export function shortLifetimeNote(life: number): string {
  const what =
    life === 0
      ? "iat equals exp: zero lifetime (the service guide's own sample does this)"
      : `exp is ${formatDuration(-life)} before iat: negative lifetime`;
  return `${what}; the token is judged by exp alone (with the ${LEEWAY_SECONDS} s leeway, see exp), but a verifier that wants exp after iat refuses it: set exp to iat plus the lifetime you mean`;
}

/** The inspector's advice on exp - iat: zero or negative, or longer than the sandbox accepts. */
export function checkLifetime(payload: Record<string, unknown>): Check {
  const iat = readTimeClaim(payload, 'iat');
  const exp = readTimeClaim(payload, 'exp');
  const missing = [iat.state !== 'number' ? 'iat' : null, exp.state !== 'number' ? 'exp' : null].filter(
    Boolean,
  );
  if (iat.state !== 'number' || exp.state !== 'number') {
    return makeCheck(
      'lifetime',
      'skipped',
      `not checked: needs iat and exp as numbers (${missing.join(' and ')} not)`,
    );
  }
  const life = exp.seconds - iat.seconds;
  const ms = iat.unit === 'ms' || exp.unit === 'ms' ? ' (read from milliseconds, see units)' : '';
  if (life <= 0) return makeCheck('lifetime', 'failed', `${shortLifetimeNote(life)}${ms}`);
  const long =
    life > MAX_BANK_JWT_LIFETIME_SECONDS
      ? `; longer than the ${formatDuration(MAX_BANK_JWT_LIFETIME_SECONDS)} the console's sandbox accepts for a bank JWT`
      : '';
  return makeCheck('lifetime', 'passed', `${formatDuration(life)} from iat to exp${ms}${long}`);
}

/**
 * The sandbox's lifetime rule (DESIGN.md "Sandbox service"): exp - iat at most `max` (its
 * `max_lifetime_seconds` setting). A lifetime of zero or less passes with the advice of
 * {@link shortLifetimeNote}: exp, checked before, already judged whether the token is expired.
 */
export function checkSandboxLifetime(payload: Record<string, unknown>, max: number): Check {
  const iat = readTimeClaim(payload, 'iat');
  const exp = readTimeClaim(payload, 'exp');
  if (iat.state !== 'number' || exp.state !== 'number') {
    return makeCheck('lifetime', 'skipped', 'not checked: needs iat and exp as numbers');
  }
  const life = exp.value - iat.value;
  if (life <= 0) return makeCheck('lifetime', 'passed', shortLifetimeNote(life));
  if (life > max) {
    return makeCheck(
      'lifetime',
      'failed',
      `exp - iat is ${life} s, more than the ${max} s the service accepts for a bank JWT`,
    );
  }
  return makeCheck(
    'lifetime',
    'passed',
    `${formatDuration(life)} from iat to exp, within ${formatDuration(max)}`,
  );
}

export function checkUnits(payload: Record<string, unknown>): Check {
  const problems: string[] = [];
  const fine: string[] = [];
  let milliseconds = false;
  for (const name of ['iat', 'exp', 'nbf'] as const) {
    const r = readTimeClaim(payload, name);
    if (r.state === 'absent') continue;
    if (r.state === 'not-a-number') {
      problems.push(`${name} is ${describeType(r.value)}, not a number of seconds`);
    } else if (r.unit === 'ms') {
      milliseconds = true;
      problems.push(
        `${name} = ${r.value} looks like milliseconds (as seconds: ${yearOfSeconds(r.value)}; as milliseconds: ${isoText(r.seconds)})`,
      );
    } else if (!Number.isInteger(r.value)) {
      problems.push(`${name} = ${r.value} is not a whole number of seconds (spec 2.4: integer)`);
    } else {
      fine.push(name);
    }
  }
  if (milliseconds)
    problems.push('JWT times are whole seconds (RFC 7519 NumericDate, spec 2.4): divide by 1000');
  if (problems.length > 0) return makeCheck('units', 'failed', problems.join('; '));
  if (fine.length === 0) return makeCheck('units', 'skipped', 'no iat, exp or nbf claim to check');
  return makeCheck('units', 'passed', `${fine.join(', ')} ${fine.length === 1 ? 'is' : 'are'} whole seconds`);
}

// ------------------------------------------------------------------------------------- claims

export function checkFlow(payload: Record<string, unknown>): Check {
  if (!Object.hasOwn(payload, 'flow')) {
    return makeCheck(
      'flow',
      'failed',
      `no flow claim: the service expects flow "${SIGN_IN_FLOW}" (spec 2.4)`,
    );
  }
  const flow = payload.flow;
  if (typeof flow !== 'string')
    return makeCheck('flow', 'failed', `flow is ${describeType(flow)}, not the string "${SIGN_IN_FLOW}"`);
  if (flow === SIGN_IN_FLOW) return makeCheck('flow', 'passed', `flow is "${SIGN_IN_FLOW}"`);
  const shown = JSON.stringify(flow);
  if ((GUIDE_FLOWS as readonly string[]).includes(flow)) {
    return makeCheck(
      'flow',
      'failed',
      `flow ${shown} is one of the service guide's other flows (${GUIDE_FLOWS.join(', ')}); the spec fixes "${SIGN_IN_FLOW}" for these tokens`,
    );
  }
  const caseNote =
    flow.trim().toLowerCase() === SIGN_IN_FLOW ? ' (the value is case- and space-sensitive)' : '';
  return makeCheck('flow', 'failed', `flow is ${shown}, not "${SIGN_IN_FLOW}"${caseNote}`);
}

function checkIdentityClaim(
  id: 'obj' | 'sub',
  meaning: string,
  payload: Record<string, unknown>,
  expected: string | undefined,
): Check {
  if (!Object.hasOwn(payload, id))
    return makeCheck(id, 'failed', `no ${id} claim: spec 2.4 requires ${id} (${meaning})`);
  const value = payload[id];
  if (typeof value !== 'string')
    return makeCheck(id, 'failed', `${id} is ${describeType(value)}, not a string`);
  const shown = JSON.stringify(value);
  if (isBlankClaim(value))
    return makeCheck(id, 'failed', value === '' ? `${id} is empty` : `${id} is only white space (${shown})`);
  if (expected === undefined)
    return makeCheck(id, 'passed', `${id} is ${shown} (no expected value given to compare with)`);
  if (value === expected) return makeCheck(id, 'passed', `${id} is ${shown}, as expected`);
  return makeCheck(id, 'failed', `${id} is ${shown}, but ${JSON.stringify(expected)} was expected`);
}

export function checkObj(payload: Record<string, unknown>, expected?: string): Check {
  return checkIdentityClaim(
    'obj',
    'the customer acted on, e.g. an IBAN or a phone number',
    payload,
    expected,
  );
}

export function checkSub(payload: Record<string, unknown>, expected?: string): Check {
  return checkIdentityClaim('sub', 'who initiates the operation', payload, expected);
}

// ------------------------------------------------------------------------------------ helpers

/** Runs a payload-based check, or skips it with the reason the payload is missing. */
export function withPayload(
  id: TokenCheckId,
  decoded: DecodedToken,
  run: (payload: Record<string, unknown>) => Check,
): Check {
  const payload = payloadOf(decoded);
  return typeof payload === 'string' ? makeCheck(id, 'skipped', payload) : run(payload);
}

/**
 * The checks that are pure functions of the token and the time (default leeway), so a reader
 * re-derives them exactly from a stored token (bank/callback-detail.ts rebuilds a callback's
 * checks on read); null when the check has no input (no payload).
 */
export const PURE_CHECKS: Partial<
  Record<TokenCheckId, (d: DecodedToken, nowSeconds: number) => Check | null>
> = {
  structure: (d) => checkStructure(d),
  alg: (d) => checkAlg(d),
  crit: (d) => checkCrit(d),
  exp: (d, now) => (d.payload ? checkExp(d.payload, now) : null),
  iat: (d, now) => (d.payload ? checkIat(d.payload, now) : null),
  nbf: (d, now) => (d.payload ? checkNbf(d.payload, now) : null),
  flow: (d) => (d.payload ? checkFlow(d.payload) : null),
};
