/**
 * Verifying a compact JWS's signature with one key, through jose's compactVerify, restricted to
 * the one alg the caller has already judged allowed (policy.ts), so the token cannot pick
 * another. Returns a verdict instead of throwing.
 */
import { compactVerify, errors, type CryptoKey } from 'jose';
import type { AllowedAlg } from './policy';

export type SignatureVerdict =
  | { ok: true }
  | {
      ok: false;
      code: 'SIGNATURE_INVALID' | 'SIGNATURE_EMPTY' | 'KEY_TOO_SMALL' | 'VERIFY_ERROR';
      message: string;
    };

/**
 * Checks the signature of `token` with `key` for `alg`. `label` names the key in messages
 * ("key kid=abc").
 *
 * @example
 * const v = await verifySignature(token, key, 'RS256', 'key kid=abc');
 * if (!v.ok) reply401(v.message);
 */
export async function verifySignature(
  token: string,
  key: CryptoKey,
  alg: AllowedAlg,
  label: string,
): Promise<SignatureVerdict> {
  if (token.endsWith('.')) {
    return {
      ok: false,
      code: 'SIGNATURE_EMPTY',
      message: `the signature segment is empty: the token is not signed`,
    };
  }
  try {
    await compactVerify(token, key, { algorithms: [alg] });
    return { ok: true };
  } catch (err) {
    if (err instanceof errors.JWSSignatureVerificationFailed) {
      return {
        ok: false,
        code: 'SIGNATURE_INVALID',
        message: `does not verify with ${label}: signed by another key, or altered after signing?`,
      };
    }
    const message = err instanceof Error ? err.message : String(err);
    if (/modulusLength/.test(message)) {
      return { ok: false, code: 'KEY_TOO_SMALL', message: `${label}: ${message}` };
    }
    return { ok: false, code: 'VERIFY_ERROR', message: `could not verify with ${label}: ${message}` };
  }
}
