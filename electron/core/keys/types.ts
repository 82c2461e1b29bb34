import type { ExportedKey, KeyInfo } from '../../contract/schemas/keys';
import type { z } from 'zod';
import type {
  AddExternalKeyInput,
  DeleteKeyInput,
  ExportKeyInput,
  GenerateKeyInput,
  ImportKeyInput,
  UpdateKeyInput,
} from '../../contract/schemas/keys';
import type { EventHub } from '../event-hub';
import type { Vault } from '../vault';

/**
 * The bank's signing keys. Metadata and public parts in `<dataDir>/keys/`, private parts sealed
 * by the vault; a private key is opened only for the one signature that needs it and never
 * leaves this module (the renderer gets KeyInfo: public JWK, fingerprint, status).
 */
export interface KeyStore {
  list(): Promise<KeyInfo[]>;
  /** Rejects NOT_FOUND naming the kid. */
  get(kid: string): Promise<KeyInfo>;
  generate(input: z.output<typeof GenerateKeyInput>): Promise<KeyInfo>;
  import(input: z.output<typeof ImportKeyInput>): Promise<KeyInfo>;
  export(input: z.output<typeof ExportKeyInput>): Promise<z.output<typeof ExportedKey>>;
  /** A key held elsewhere: its public key and signing command, checked by a test signature. */
  addExternal(input: z.output<typeof AddExternalKeyInput>): Promise<KeyInfo>;
  update(input: z.output<typeof UpdateKeyInput>): Promise<KeyInfo>;
  delete(input: z.output<typeof DeleteKeyInput>): Promise<void>;
  /**
   * A compact JWS over `payload`, header {alg (the key's), kid, typ: 'JWT'}: signed in the vault,
   * or by the signing command of a key held elsewhere and verified against its public key.
   */
  sign(kid: string, payload: Record<string, unknown>): Promise<string>;
}

export interface KeyStoreOptions {
  dataDir: string;
  vault: Pick<Vault, 'sealer'>;
  /** Emits `keys.changed`. */
  events: EventHub;
  now?: () => number;
  /** The environment signing commands of keys held elsewhere run with; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** How long a signing command may run; 10 s by default (tests shorten it). */
  signTimeoutMs?: number;
}
