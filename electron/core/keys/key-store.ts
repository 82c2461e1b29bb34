/**
 * The bank's signing keys (DESIGN.md "keys"): generate (jose), import (PEM PKCS#8, PKCS#1,
 * private JWK), export the public part exactly as spec 2.1 lists it, and sign compact JWS.
 *
 * Threat model: a private key here lets anyone act as the bank towards the service. So:
 * - it is sealed by the vault (AES-256-GCM under the keychain's vault key, aad
 *   `signing-key:<kid>` so a blob cannot be swapped onto another kid) before anything is
 *   written, and keys.json holds only the sealed blob;
 * - it is opened only inside sign(), imported as a non-extractable WebCrypto key for that one
 *   signature, and the opened bytes are zeroed at once;
 * - it is never returned (KeyInfo and exports carry the public JWK and fingerprint only), never
 *   logged, and never put in an error message, in clear.
 *
 * Status rules (explicit, no hidden rotation): the first key becomes `active`; later keys are
 * `next` unless asked otherwise. Making a key active (on generate, import or update) turns the
 * key that was active into `retired`, so at most one key is active. Retired keys still sign
 * (a rotation needs the old key briefly); expired keys do not.
 *
 * keys.json is re-read before every operation, so the CLI and a running `serve` see each
 * other's changes; changes within one process are serialized. Two processes changing keys in
 * the same instant can still race (the later write wins); the file itself is never torn.
 *
 * Keys held elsewhere (HSM, cloud KMS, Vault) have no private part here at all: their signing
 * command signs and every signature is verified first (key-external.ts, external-signer.ts).
 *
 * This file only wires: the rules are in key-rules.ts, the state in key-store-state.ts, changes
 * in key-writes.ts, new keys in key-create.ts, signing in key-sign.ts, exports in key-export.ts.
 */
import type { KeyStore, KeyStoreOptions } from './types';
import { exportPublicKey } from './key-export';
import { generateKey, importKey } from './key-create';
import { addExternalKey } from './key-external';
import { findKey } from './key-rules';
import { signWithKey } from './key-sign';
import { createKeyStoreState, keyInfo, keyInfos } from './key-store-state';
import { deleteKey, updateKey } from './key-writes';

export { aadFor, specJwk } from './key-rules';

/**
 * Opens the key store of a profile. Nothing is read until first use.
 *
 * @example
 * const keys = createKeyStore({ dataDir, vault, events });
 * const info = await keys.generate({ alg: 'RS256', bits: 2048 });
 * const token = await keys.sign(info.kid, { flow: 'sign-in', obj, sub, iat, exp });
 */
export function createKeyStore(options: KeyStoreOptions): KeyStore {
  const state = createKeyStoreState(options);
  return {
    list: async () => keyInfos(state, await state.file.read()),
    get: async (kid) => keyInfo(state, findKey(await state.file.read(), kid)),
    generate: (input) => generateKey(state, input),
    import: (input) => importKey(state, input),
    addExternal: (input) => addExternalKey(state, input),
    export: async (input) => exportPublicKey(findKey(await state.file.read(), input.kid), input.format),
    update: (input) => updateKey(state, input),
    delete: (input) => deleteKey(state, input),
    sign: (kid, payload) => signWithKey(state, kid, payload),
  };
}
