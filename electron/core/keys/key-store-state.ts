/**
 * The key store's state: the profile's keys.json, the vault that seals private keys, the queue
 * that serializes changes within one process, and the fingerprints already computed. Every
 * operation (key-writes.ts, key-create.ts, key-sign.ts, key-export.ts) is a function over it.
 */
import { calculateJwkThumbprint } from 'jose';
import type { KeyInfo, SpecJwk } from '../../contract/schemas/keys';
import { serializer } from '../common';
import type { EventHub } from '../event-hub';
import type { Vault } from '../vault';
import { daysUntil } from './expiry';
import { SIGN_COMMAND_TIMEOUT_MS } from './external-signer';
import { KeyFile, type StoredKey } from './key-file';
import type { KeyStoreOptions } from './types';

/** One profile's key store. */
export interface KeyStoreState {
  readonly vault: Pick<Vault, 'sealer'>;
  readonly events: EventHub;
  readonly now: () => number;
  /** The environment signing commands run with (the console's own: credential helpers work). */
  readonly env: NodeJS.ProcessEnv;
  /** How long a signing command may run (DESIGN.md "Keys held elsewhere": 10 s). */
  readonly signTimeoutMs: number;
  readonly file: KeyFile;
  /** Changes within one process run one at a time (the file is re-read inside each). */
  readonly exclusive: ReturnType<typeof serializer>;
  /** RFC 7638 thumbprints by modulus: computing one costs a hash, listing asks for all. */
  readonly thumbprints: Map<string, string>;
}

/** The state of a profile's key store; nothing is read until first use. */
export function createKeyStoreState(options: KeyStoreOptions): KeyStoreState {
  return {
    vault: options.vault,
    events: options.events,
    now: options.now ?? Date.now,
    env: options.env ?? process.env,
    signTimeoutMs: options.signTimeoutMs ?? SIGN_COMMAND_TIMEOUT_MS,
    file: new KeyFile(options.dataDir),
    exclusive: serializer(),
    thumbprints: new Map(),
  };
}

/** The key's RFC 7638 SHA-256 thumbprint, the fingerprint pages show. */
export async function fingerprint(state: KeyStoreState, jwk: SpecJwk): Promise<string> {
  const cached = state.thumbprints.get(jwk.n);
  if (cached) return cached;
  const value = await calculateJwkThumbprint({ kty: 'RSA', e: jwk.e, n: jwk.n }, 'sha256');
  state.thumbprints.set(jwk.n, value);
  return value;
}

/** What a caller sees of a stored key: never the sealed private key. */
export async function keyInfo(state: KeyStoreState, k: StoredKey): Promise<KeyInfo> {
  return {
    kid: k.kid,
    alg: k.alg,
    bits: k.bits,
    label: k.label,
    counterparty_guid: k.counterparty_guid,
    status: k.status,
    created_at: k.created_at,
    expires: k.expires,
    expires_in_days: k.expires === null ? null : daysUntil(k.expires, state.now()),
    fingerprint: await fingerprint(state, k.public_jwk),
    public_jwk: { ...k.public_jwk },
    holder: k.sign_command ? 'external' : 'vault',
    sign_command: k.sign_command ? [...k.sign_command] : null,
  };
}

/** keyInfo of each key, in order. */
export const keyInfos = (state: KeyStoreState, keys: StoredKey[]) =>
  Promise.all(keys.map((k) => keyInfo(state, k)));
