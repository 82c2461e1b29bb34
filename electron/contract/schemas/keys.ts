import { z } from 'zod';
import { MIN_RSA_BITS, RSA_KEY_RULES } from './rsa-rules';

/** Signing algorithms the console generates and signs with (DESIGN.md "keys": RS256 default). */
export const SigningAlg = z.enum(['RS256', 'RS384', 'RS512', 'PS256'], {
  error: 'must be one of RS256, RS384, RS512, PS256',
});
export type SigningAlg = z.infer<typeof SigningAlg>;

/**
 * RSA modulus sizes the console generates. A size below the key rules' minimum is refused
 * naming the rule (DESIGN.md "Bank endpoints"), not only the list.
 */
export const KeyBits = z.union([z.literal(2048), z.literal(3072), z.literal(4096)], {
  error: (issue) =>
    typeof issue.input === 'number' && issue.input < MIN_RSA_BITS
      ? `${issue.input} bits is too short: ${RSA_KEY_RULES}; choose 2048, 3072 or 4096`
      : 'must be 2048, 3072 or 4096',
});

/** A calendar day, YYYY-MM-DD, that exists (no 2025-02-30). */
const Day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
  }, 'must be a date YYYY-MM-DD that exists');
/** kid is free-form in the service's guide ("54321", an upper-case UUID): printable, no whitespace. */
export const Kid = z
  .string()
  .min(1, 'kid must not be empty')
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'kid must be printable ASCII without spaces');

/**
 * active: signs by default (at most one); next: generated or imported for a rotation, not yet
 * in use; retired: replaced, still able to sign (rotation needs the old key briefly).
 */
export const KeyStatus = z.enum(['active', 'next', 'retired'], { error: 'must be active, next or retired' });

/** A public JWK with exactly the spec's members (2.1), in this order: alg, e, kid, kty, n, use. */
export const SpecJwk = z.object({
  alg: SigningAlg,
  e: z.string(),
  kid: z.string(),
  kty: z.literal('RSA'),
  n: z.string(),
  use: z.literal('sig'),
});
export type SpecJwk = z.infer<typeof SpecJwk>;

/**
 * Where a key's private part lives (DESIGN.md "Keys held elsewhere"): `vault`, sealed in this
 * profile's vault; `external`, in an HSM, a cloud KMS or Vault, never in the console, used
 * through its signing command.
 */
export const KeyHolder = z.enum(['vault', 'external']);
export type KeyHolder = z.infer<typeof KeyHolder>;

/** The longest signing command accepted, in characters. */
export const MAX_SIGN_COMMAND_CHARS = 4096;

/**
 * Days a key the console makes for onboarding or rotation is valid when no date is given: the
 * walkthrough's keys and a rotation's next key alike (issue 26 item 5), so a key never silently
 * lasts forever.
 */
export const DEFAULT_KEY_DAYS = 365;

/**
 * The last valid day (YYYY-MM-DD, UTC) of a key made at `nowMs` with the default validity: what
 * the core gives a rotation's or the walkthrough's new key when no date is given, and what the
 * pages announce before it is made (one computation, core/keys/expiry.ts re-exports it).
 *
 * @example
 * defaultKeyExpiry(Date.UTC(2026, 0, 1)); // '2027-01-01'
 */
export function defaultKeyExpiry(nowMs: number): string {
  return new Date(nowMs + DEFAULT_KEY_DAYS * 86_400_000).toISOString().slice(0, 10);
}

/** A key's status in one environment that uses it (issue 26; DESIGN.md "Environments"). */
export const KeyEnvironmentStatus = z.object({
  /** The environment's id ("sandbox" for the built-in one). */
  environment: z.string(),
  name: z.string(),
  status: KeyStatus,
});
export type KeyEnvironmentStatus = z.infer<typeof KeyEnvironmentStatus>;

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
  public_jwk: SpecJwk,
  holder: KeyHolder,
  /**
   * A key held elsewhere: its signing command as an argument template ({in}, {out}, {alg}, …),
   * one word per element. It holds no secret (one is refused when the key is added). Null for
   * a vault key.
   */
  sign_command: z.array(z.string()).nullable(),
  /**
   * The key's status in each environment that uses it (active there, or retired there), the
   * sandbox first; empty when none does. `status` above is the profile-wide status the key store
   * keeps (what a key with no environment shows). Absent from keys.generate/import/update answers.
   */
  environments: z.array(KeyEnvironmentStatus).optional(),
});
export type KeyInfo = z.infer<typeof KeyInfo>;

export const GenerateKeyInput = z.object({
  alg: SigningAlg.optional(),
  bits: KeyBits.optional(),
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

/**
 * A key held elsewhere (DESIGN.md "Keys held elsewhere"): its public key and the command that
 * signs with its private part. The command is one line, split into words as a POSIX shell
 * would (quotes, backslashes) but never run by a shell.
 */
export const AddExternalKeyInput = z.object({
  /** The public key: PEM (SPKI, PKCS#1 or a certificate) or a public JWK (JSON). */
  public_key: z
    .string()
    .min(1, 'give the public key, PEM or JWK')
    .max(64 * 1024),
  /** Else the JWK's own kid; a PEM carries none, so a kid is needed with one. */
  kid: Kid.optional(),
  /** Else the JWK's own alg, else RS256. */
  alg: SigningAlg.optional(),
  /** e.g. `pkcs11-tool --module … --login --pin env:PIN --sign -m SHA256-RSA-PKCS -i {in} -o {out}`. */
  sign_command: z
    .string()
    .min(1, 'give the signing command')
    .max(MAX_SIGN_COMMAND_CHARS, `the signing command is longer than ${MAX_SIGN_COMMAND_CHARS} characters`),
  label: z.string().max(200).optional(),
  expires: Day.optional(),
  status: KeyStatus.optional(),
});

export const ExportKeyInput = z.object({
  kid: Kid,
  format: z.enum(['jwk', 'jwks', 'pem'], { error: 'must be jwk, jwks or pem' }),
});
/** The public part only: `text` is the JWK or JWKS (JSON) or SPKI PEM, with a file name to save it as. */
export const ExportedKey = z.object({ text: z.string(), filename: z.string(), mime: z.string() });

/** status 'active' makes this the active key and retires the one that was active (explicit rotation). */
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
  /** Why the vault is not unlocked, when a failure is the reason: the code sealer() rejects with. */
  code: z
    .enum([
      'KEYCHAIN_UNAVAILABLE',
      'VAULT_LOCKED',
      'VAULT_PASSPHRASE_WRONG',
      'VAULT_DAMAGED',
      'VAULT_KEY_MISSING',
    ])
    .optional(),
});
export type VaultStatus = z.infer<typeof VaultStatus>;

export const UnlockVaultInput = z.object({ passphrase: z.string().min(1).max(1024) });
export const CreatePassphraseVaultInput = z.object({
  passphrase: z.string().min(12, 'passphrase must be at least 12 characters').max(1024),
});
