import { z } from 'zod';
import { PublicJwk } from './sandbox';

/** Signing algorithms the console generates and signs with (DESIGN.md "keys": RS256 default). */
export const SigningAlg = z.enum(['RS256', 'RS384', 'RS512', 'PS256']);
export type SigningAlg = z.infer<typeof SigningAlg>;

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');
/** kid is free-form in the service's guide ("54321", an upper-case UUID): printable, no whitespace. */
export const Kid = z
  .string()
  .min(1, 'kid must not be empty')
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'kid must be printable ASCII without spaces');

export const KeyStatus = z.enum(['active', 'next', 'retired']);

/** What the renderer may know of a key: never private material. */
export const KeyInfo = z.object({
  kid: Kid,
  alg: SigningAlg,
  bits: z.number().int(),
  label: z.string(),
  counterparty_guid: z.string().nullable(),
  status: KeyStatus,
  created_at: z.string(),
  /** Last day of validity (YYYY-MM-DD), null when none was set. */
  expires: Day.nullable(),
  /** Whole days until `expires` (negative once past), null without an expiry. */
  expires_in_days: z.number().int().nullable(),
  /** RFC 7638 SHA-256 thumbprint of the public key, base64url. */
  fingerprint: z.string(),
  /** The public JWK with exactly the spec's fields (2.1): alg, e, kid, kty, n, use = sig. */
  public_jwk: PublicJwk,
});
export type KeyInfo = z.infer<typeof KeyInfo>;

export const GenerateKeyInput = z.object({
  alg: SigningAlg.optional(),
  bits: z.union([z.literal(2048), z.literal(3072), z.literal(4096)]).optional(),
  kid: Kid.optional(),
  label: z.string().max(200).optional(),
  counterparty_guid: z.string().max(100).optional(),
  expires: Day.optional(),
  status: KeyStatus.optional(),
});

export const ImportKeyInput = z.object({
  /** A private key as PEM (PKCS#8 or PKCS#1) or as a JWK (JSON). Never stored or echoed in clear. */
  text: z
    .string()
    .min(1)
    .max(64 * 1024),
  kid: Kid.optional(),
  alg: SigningAlg.optional(),
  label: z.string().max(200).optional(),
  expires: Day.optional(),
  status: KeyStatus.optional(),
});

export const ExportKeyInput = z.object({ kid: Kid, format: z.enum(['jwk', 'jwks', 'pem']) });
export const ExportedKey = z.object({ text: z.string(), filename: z.string(), mime: z.string() });

export const UpdateKeyInput = z.object({
  kid: Kid,
  label: z.string().max(200).optional(),
  expires: Day.nullable().optional(),
  status: KeyStatus.optional(),
  counterparty_guid: z.string().max(100).nullable().optional(),
});

export const DeleteKeyInput = z.object({ kid: Kid, confirm: z.literal(true, 'confirm must be true') });

export const VaultStatus = z.object({
  /** unlocked: keys can be used; locked: a passphrase vault waits for its passphrase; unavailable: no keychain answered. */
  state: z.enum(['unlocked', 'locked', 'unavailable', 'uninitialized']),
  kind: z.enum(['keychain', 'passphrase']).nullable(),
  /** What happened and what to do, e.g. "No Secret Service on the session bus: install gnome-keyring or use a passphrase vault". */
  detail: z.string(),
});
export type VaultStatus = z.infer<typeof VaultStatus>;

export const UnlockVaultInput = z.object({ passphrase: z.string().min(1).max(1024) });
export const CreatePassphraseVaultInput = z.object({
  passphrase: z.string().min(12, 'passphrase must be at least 12 characters').max(1024),
});
