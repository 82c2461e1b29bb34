/**
 * Changes to keys.json: add, update, delete. Each runs alone (the state's queue), re-reads the
 * file first (the CLI and a running `serve` see each other's changes), and emits
 * `keys.changed` with the new list once written.
 */
import type { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import type {
  DeleteKeyInput,
  KeyInfo,
  SpecJwk,
  SigningAlg,
  UpdateKeyInput,
} from '../../contract/schemas/keys';
import { fieldProblem } from '../common';
import type { SecretSealer } from '../vault';
import { isExpired } from './expiry';
import type { StoredKey } from './key-file';
import { aadFor, activateOnly, checkExpiresAhead, checkKidFree, findKey, quote } from './key-rules';
import { fingerprint, keyInfo, keyInfos, type KeyStoreState } from './key-store-state';

/** A key to add: its private part already sealed, or (held elsewhere) its signing command. */
export type NewKey = NewKeyBase & ({ sealed_private_key: string } | { sign_command: string[] });

/** What every new key has, whoever holds its private part. */
export interface NewKeyBase {
  kid: string;
  alg: SigningAlg;
  bits: number;
  label: string;
  counterparty_guid: string | null;
  expires: string | null;
  status: StoredKey['status'] | undefined;
  public_jwk: SpecJwk;
}

/** Writes the list and tells the pages. */
async function commit(state: KeyStoreState, keys: StoredKey[]): Promise<void> {
  await state.file.write(keys);
  state.events.emit('keys.changed', await keyInfos(state, keys));
}

/**
 * Seals PKCS#8 DER for `kid` and zeroes the clear bytes, whatever happens.
 *
 * @example
 * const sealed = await sealPrivateKey(await vault.sealer(), kid, pkcs8); // pkcs8 is all zeros now
 */
export async function sealPrivateKey(sealer: SecretSealer, kid: string, pkcs8: Uint8Array): Promise<string> {
  try {
    return await sealer.seal(pkcs8, aadFor(kid));
  } finally {
    pkcs8.fill(0);
  }
}

/**
 * Adds a key: its kid free, its public key not stored under another kid. The first key becomes
 * active, later ones `next` unless asked otherwise; an active one retires the key active before.
 */
export async function addKey(state: KeyStoreState, key: NewKey): Promise<KeyInfo> {
  return state.exclusive(async () => {
    const keys = await state.file.read();
    checkKidFree(keys, key.kid);
    const thumb = await fingerprint(state, key.public_jwk);
    for (const k of keys) {
      if ((await fingerprint(state, k.public_jwk)) === thumb) {
        throw new ConsoleError(
          'CONFLICT',
          `this key is already stored, with kid ${quote(k.kid)} (same public key, fingerprint ${thumb})`,
          { kid: k.kid },
        );
      }
    }
    const status = key.status ?? (keys.some((k) => k.status === 'active') ? 'next' : 'active');
    // Written field by field, in keys.json's order (key-file.ts).
    const stored: StoredKey = {
      kid: key.kid,
      alg: key.alg,
      bits: key.bits,
      label: key.label,
      counterparty_guid: key.counterparty_guid,
      status,
      created_at: new Date(state.now()).toISOString(),
      expires: key.expires,
      public_jwk: key.public_jwk,
      ...('sign_command' in key
        ? { sign_command: key.sign_command }
        : { sealed_private_key: key.sealed_private_key }),
    };
    let next = [...keys, stored];
    if (status === 'active') next = activateOnly(next, stored.kid);
    await commit(state, next);
    return keyInfo(state, findKey(next, stored.kid));
  });
}

/** Changes a key's label, expiry, counterparty or status; an expired key cannot become active. */
export async function updateKey(
  state: KeyStoreState,
  input: z.output<typeof UpdateKeyInput>,
): Promise<KeyInfo> {
  return state.exclusive(async () => {
    const keys = await state.file.read();
    const key = findKey(keys, input.kid);
    if (input.expires !== undefined) checkExpiresAhead(input.expires, state.now());
    const changed: StoredKey = {
      ...key,
      ...(input.label !== undefined ? { label: input.label } : {}),
      ...(input.expires !== undefined ? { expires: input.expires } : {}),
      ...(input.counterparty_guid !== undefined ? { counterparty_guid: input.counterparty_guid } : {}),
    };
    if (input.status === 'active' && isExpired(changed.expires, state.now())) {
      throw new ConsoleError(
        'KEY_INVALID',
        `key ${quote(key.kid)} expired on ${String(changed.expires)}: it cannot become the active key`,
      );
    }
    if (input.status !== undefined && input.status !== 'active') changed.status = input.status;
    let next = keys.map((k) => (k.kid === key.kid ? changed : k));
    if (input.status === 'active') next = activateOnly(next, key.kid);
    await commit(state, next);
    return keyInfo(state, findKey(next, key.kid));
  });
}

/** Deletes a key, only when confirmed. */
export async function deleteKey(state: KeyStoreState, input: z.output<typeof DeleteKeyInput>): Promise<void> {
  if (input.confirm !== true) throw fieldProblem('confirm', 'confirm must be true');
  await state.exclusive(async () => {
    const keys = await state.file.read();
    findKey(keys, input.kid);
    await commit(
      state,
      keys.filter((k) => k.kid !== input.kid),
    );
  });
}
