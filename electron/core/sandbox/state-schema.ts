/**
 * The shapes of the sandbox's state: each row of the `sandbox_*` tables of the profile database
 * is checked against its part on load, and the old `<dataDir>/sandbox/state.json` (migrated
 * once) against StateFile as a whole; what does not match is reported as damaged and left
 * alone (state-store.ts).
 *
 * Private keys appear only sealed by the vault (`sealed_private_key`, opaque); without a vault
 * the field is null and the private key never leaves memory (DESIGN.md "Secrets").
 */
import { z } from 'zod';
import {
  DEFAULT_DELIVERY_TIMEOUT_MS,
  SERVICE_LADDER_MAX_ATTEMPTS,
  SERVICE_LADDER_WAITS_SECONDS,
} from '../../contract/schemas/delivery';
import { Counterparty, PublicJwk, SandboxSettings, Trace } from '../../contract/schemas/sandbox';
import { privateMembers } from '../jwt';

/** The file's format marker and version, checked on load. */
export const STATE_FORMAT = 'dets-console.sandbox';
export const STATE_VERSION = 1;

/** Traces kept (the newest). */
export const MAX_TRACES = 500;

const PublicOnly = PublicJwk.refine((jwk) => privateMembers(jwk) === null, {
  message: 'a stored JWK has private members',
});

export const StoredSandboxKey = z.object({
  kid: z.string().min(1),
  created_at: z.string(),
  status: z.enum(['active', 'grace']),
  retires_at: z.string().nullable(),
  jwk: PublicOnly,
  /** The PKCS#8 private key sealed with the vault (aad `sandbox-key:<kid>`), or null (memory only). */
  sealed_private_key: z.string().nullable(),
});
export type StoredSandboxKey = z.infer<typeof StoredSandboxKey>;

export const StoredCounterparty = Counterparty.extend({
  jwks: z.array(Counterparty.shape.jwks.element.extend({ jwk: PublicOnly })),
});

/** The delivery ladder's settings as the guide has them (issue 27), for settings stored before them. */
export const DELIVERY_SETTING_DEFAULTS = {
  delivery_waits_seconds: [...SERVICE_LADDER_WAITS_SECONDS],
  delivery_max_attempts: SERVICE_LADDER_MAX_ATTEMPTS,
  delivery_timeout_ms: DEFAULT_DELIVERY_TIMEOUT_MS,
} as const;

/**
 * Settings as stored: a row written before issue 27 has no delivery settings and takes the
 * guide's; everything else must be there.
 */
export const StoredSettings = z.preprocess(
  (v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? { ...DELIVERY_SETTING_DEFAULTS, delivery_waits_seconds: [...SERVICE_LADDER_WAITS_SECONDS], ...v }
      : v,
  SandboxSettings,
);

export const StateFile = z.object({
  format: z.literal(STATE_FORMAT),
  version: z.literal(STATE_VERSION),
  settings: StoredSettings,
  keys: z.array(StoredSandboxKey),
  counterparties: z.array(StoredCounterparty),
  traces: z.array(Trace).max(MAX_TRACES),
});
export type StateFile = z.infer<typeof StateFile>;

/** What the sandbox loads at start; `settings` null when none were ever saved. */
export interface SandboxState {
  settings: z.infer<typeof SandboxSettings> | null;
  keys: StoredSandboxKey[];
  counterparties: z.infer<typeof StoredCounterparty>[];
  traces: z.infer<typeof Trace>[];
}
export type StoredCounterparty = z.infer<typeof StoredCounterparty>;
