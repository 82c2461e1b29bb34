/**
 * Signing with a stored key: the only place a private key is opened. It is imported as a
 * non-extractable WebCrypto key for the one signature, and the opened bytes are zeroed at once
 * (key-store.ts's threat model). A key held elsewhere has no private part here: its signing
 * command signs, and the signature is verified before the token is built (external-signer.ts).
 * Errors name the kid, never the key.
 */
import { webcrypto } from 'node:crypto';
import { SignJWT } from 'jose';
import { ConsoleError } from '../../contract/errors';
import type { SigningAlg } from '../../contract/schemas/keys';
import { isExpired } from './expiry';
import { signExternally, type ExternalKey } from './external-signer';
import type { StoredKey } from './key-file';
import { aadFor, findKey, quote } from './key-rules';
import type { KeyStoreState } from './key-store-state';

/** WebCrypto import parameters per JWS alg (RFC 7518 §3.3, §3.5). */
const WEBCRYPTO_ALG: Record<SigningAlg, webcrypto.RsaHashedImportParams> = {
  RS256: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  RS384: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384' },
  RS512: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512' },
  PS256: { name: 'RSA-PSS', hash: 'SHA-256' },
};

/** The key's private part as a non-extractable signing key; the opened bytes are zeroed. */
async function openSigningKey(
  state: KeyStoreState,
  key: StoredKey & { sealed_private_key: string },
): Promise<webcrypto.CryptoKey> {
  const { kid } = key;
  const sealer = await state.vault.sealer();
  let pkcs8: Uint8Array;
  try {
    pkcs8 = await sealer.open(key.sealed_private_key, aadFor(kid));
  } catch (err) {
    if (err instanceof ConsoleError) throw err;
    // The sealer's own text says why (another vault, a damaged blob); it never holds the key.
    throw new ConsoleError(
      'KEY_INVALID',
      `the private key of ${quote(kid)} could not be opened with this profile's vault (sealed by another ` +
        `vault, or damaged): ${err instanceof Error ? err.message : String(err)}`,
      { kid },
    );
  }
  try {
    return await webcrypto.subtle.importKey('pkcs8', pkcs8, WEBCRYPTO_ALG[key.alg], false, ['sign']);
  } catch {
    throw new ConsoleError(
      'KEY_INVALID',
      `the private key of ${quote(kid)} opened but is not a usable RSA key`,
      {
        kid,
      },
    );
  } finally {
    pkcs8.fill(0);
  }
}

/**
 * A compact JWS over `payload` with header {alg (the key's), kid, typ: 'JWT'}. Retired keys
 * still sign (a rotation needs the old key briefly); expired keys do not.
 *
 * @example
 * await signWithKey(state, 'bank-2026', { flow: 'sign-in', obj, sub, iat, exp }); // 'eyJ…'
 */
export async function signWithKey(
  state: KeyStoreState,
  kid: string,
  payload: Record<string, unknown>,
): Promise<string> {
  const key = findKey(await state.file.read(), kid);
  if (isExpired(key.expires, state.now())) {
    throw new ConsoleError(
      'KEY_INVALID',
      `key ${quote(kid)} expired on ${String(key.expires)}: it no longer signs; generate or activate another key`,
      { kid },
    );
  }
  if (key.sign_command) return signWithCommand(state, { ...key, sign_command: key.sign_command }, payload);
  if (key.sealed_private_key === undefined)
    throw new ConsoleError('INTERNAL', `key ${quote(kid)} has no private part`);
  const privateKey = await openSigningKey(state, { ...key, sealed_private_key: key.sealed_private_key });
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid, typ: 'JWT' }).sign(privateKey);
}

/** JSON as base64url (RFC 7515 §2: BASE64URL(UTF8(JSON))). */
const b64json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/**
 * The compact JWS of a key held elsewhere: the same header as jose writes for a vault key, the
 * signing input handed to the command, its signature verified before it is used.
 */
async function signWithCommand(
  state: KeyStoreState,
  key: ExternalKey,
  payload: Record<string, unknown>,
): Promise<string> {
  const input = `${b64json({ alg: key.alg, kid: key.kid, typ: 'JWT' })}.${b64json(payload)}`;
  const signature = await signExternally(key, Buffer.from(input, 'ascii'), {
    env: state.env,
    timeoutMs: state.signTimeoutMs,
  });
  return `${input}.${signature.toString('base64url')}`;
}
