import { z } from 'zod';
import {
  AddExternalKeyInput,
  DeleteKeyInput,
  ExportKeyInput,
  ExportedKey,
  GenerateKeyInput,
  ImportKeyInput,
  KeyInfo,
  UpdateKeyInput,
} from '../schemas/keys';
import { method, NoInput } from './method';

/** `keys.*` methods: the bank's signing keys (private parts never leave the core). */
export const keysMethods = {
  'keys.list': method({
    summary: 'Every signing key: kid, alg, status, expiry, fingerprint and public JWK.',
    input: NoInput,
    output: z.array(KeyInfo),
  }),
  'keys.generate': method({
    summary: 'Generate an RSA signing key (RS256/2048 by default) into the vault.',
    input: GenerateKeyInput,
    output: KeyInfo,
  }),
  'keys.import': method({
    summary: 'Import a private key from PEM (PKCS#8, PKCS#1) or JWK into the vault.',
    input: ImportKeyInput,
    output: KeyInfo,
  }),
  'keys.addExternal': method({
    summary:
      'Add a key held elsewhere (HSM, cloud KMS, Vault): its public key and a signing command; a test signature is verified first.',
    input: AddExternalKeyInput,
    output: KeyInfo,
  }),
  'keys.export': method({
    summary: "Export a key's public part as the spec's JWK, a JWKS, or PEM.",
    input: ExportKeyInput,
    output: ExportedKey,
  }),
  'keys.update': method({
    summary: "Change a key's label, expiry, status or counterparty.",
    input: UpdateKeyInput,
    output: KeyInfo,
  }),
  'keys.delete': method({
    summary: 'Delete a key (confirm: true).',
    input: DeleteKeyInput,
    output: z.object({ deleted: z.string() }),
  }),
} as const;

/** `keys.*` events. */
export const keysEvents = {
  'keys.changed': z.array(KeyInfo),
} as const;
