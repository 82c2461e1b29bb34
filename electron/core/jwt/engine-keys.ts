/**
 * The engine's kid and signature checks (engine.ts; DESIGN.md "Bank endpoints"): the key is
 * found only by kid in the caller's key source (never through `jku`, `x5u`, `jwk` or `x5c`), and
 * the signature is verified only with an allowed alg, with each key the kid names.
 *
 * Threat model: the header is attacker-controlled; a kid that is not a string, an empty kid, a
 * kid the set lacks, a refused alg or a signature segment that is not base64url each fail with
 * words, and nothing here throws.
 */
import type { Check } from '../../contract/schemas/inspector';
import { makeCheck } from './checks';
import type { EngineRun } from './engine-types';
import { describeType } from './policy';
import { signedParts, verifySignature, type SignatureVerdict } from './signature';

/** A check after the first failure (first-failure mode); also how a stored callback's detail is rebuilt. */
export const notChecked = (failed: string) => `not checked: ${failed} failed first`;

const kidFailed = (detail: string) => makeCheck('kid', 'failed', detail);
const signatureFailed = (detail: string) => makeCheck('signature', 'failed', detail);

/**
 * Judges the header's kid and looks it up in the caller's keys (a `lookup` source may fetch
 * within the caller's budget); the set it was found in and the source's note go to `run`.
 *
 * @example
 * const check = await checkKid(run, decoded.header.kid); // check.status: 'passed' | 'failed'
 */
export async function checkKid(run: EngineRun, kid: unknown): Promise<Check> {
  const keys = run.request.keys;
  if (kid !== undefined && typeof kid !== 'string')
    return kidFailed(`kid is ${describeType(kid)}, not a string`);
  if (typeof kid === 'string' && kid.trim() === '') return kidFailed('kid is an empty string');
  if (kid === undefined) return kidFailed("the header has no kid: the service's keys are looked up by kid");
  if (keys.kind === 'none') {
    return makeCheck(
      'kid',
      'passed',
      `kid ${JSON.stringify(kid)} present (no key set given to look it up in)`,
    );
  }
  if (keys.kind === 'unavailable')
    return kidFailed(`kid ${JSON.stringify(kid)} not looked up: ${keys.detail}`);
  let note: string | null = null;
  if (keys.kind === 'set') run.set = keys.set;
  else {
    const found = await keys.forKid(kid);
    run.set = found.set;
    note = found.detail;
  }
  run.keysNote = note;
  if (!run.set) return kidFailed(note ?? 'no key set to look the kid up in');
  const found = run.set.lookup(kid);
  if (!found.found) return kidFailed(note ? `${found.message} (${note})` : found.message);
  return makeCheck(
    'kid',
    'passed',
    found.matchedBy === 'kid' ? found.message : `kid ${JSON.stringify(kid)} present; ${found.message}`,
  );
}

/**
 * Verifies the signature of `jws` with the keys `kid` names in the run's set (the kid passed);
 * the key that verified goes to `run.usedKey`.
 *
 * @example
 * const check = await checkSignature(run, jws, kid);
 */
export async function checkSignature(run: EngineRun, jws: string, kid: string): Promise<Check> {
  const { alg, set, decoded } = run;
  if (alg === null) {
    return makeCheck(
      'signature',
      'skipped',
      'not verified: the alg is refused (see alg); unsigned and HMAC tokens are never verified, whatever the key',
    );
  }
  if (run.request.keys.kind === 'none' || !set) {
    return makeCheck(
      'signature',
      'skipped',
      'no key to verify with: paste a JWKS, JWK or PEM public key, or give a JWKS URL',
    );
  }
  if (decoded?.problems.some((p) => p.segment === 'signature')) {
    return signatureFailed('the signature segment is not base64url (see structure)');
  }
  const parts = signedParts(jws);
  if (!parts) return signatureFailed('the signature segment is empty: the token is not signed');
  const candidates = set.candidates(kid, alg);
  if (!candidates.ok) return signatureFailed(candidates.message);
  let firstFailure: SignatureVerdict | null = null;
  for (const k of candidates.keys) {
    const v = await verifySignature(parts, k.key, alg, k.label);
    if (v.ok) {
      run.usedKey = { label: k.label };
      const among = candidates.ambiguous ? ` (one of ${candidates.keys.length} keys under this kid)` : '';
      return makeCheck('signature', 'passed', `verified with ${k.label}${among} (${alg})`);
    }
    firstFailure ??= v;
  }
  if (candidates.ambiguous) {
    return signatureFailed(
      `the signature verifies with none of the ${candidates.keys.length} keys under kid ${JSON.stringify(kid)}: the kid is ambiguous in the JWKS (it appears more than once), and no key under it signed this token`,
    );
  }
  return signatureFailed(firstFailure && !firstFailure.ok ? firstFailure.message : 'does not verify');
}
