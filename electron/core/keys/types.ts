import type { ExportedKey, KeyInfo } from '../../contract/schemas/keys';
import type { z } from 'zod';
import type {
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
  update(input: z.output<typeof UpdateKeyInput>): Promise<KeyInfo>;
  delete(input: z.output<typeof DeleteKeyInput>): Promise<void>;
  /** A compact JWS over `payload`, header {alg (the key's), kid, typ: 'JWT'}. */
  sign(kid: string, payload: Record<string, unknown>): Promise<string>;
}

export interface KeyStoreOptions {
  dataDir: string;
  vault: Pick<Vault, 'sealer'>;
  /** Emits `keys.changed`. */
  events: EventHub;
  now?: () => number;
}
