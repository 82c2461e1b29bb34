/** The sandbox's settings: defaults, and validated partial updates. */
import { SandboxSettings } from '../../contract/schemas/sandbox';
import { badRequest } from './errors';
import { invalidArgument, WHOLE_ARGUMENT } from '../common';
import { MAX_BANK_JWT_LIFETIME_SECONDS } from '../jwt';
import { DELIVERY_SETTING_DEFAULTS } from './state-schema';
import { SPEC_NOTIFY_PREFIX } from '../../contract/schemas/service-paths';

export const DEFAULT_SETTINGS: SandboxSettings = {
  // DESIGN.md "Sandbox service": a bank JWT lives at most 1 hour.
  max_lifetime_seconds: MAX_BANK_JWT_LIFETIME_SECONDS,
  key_grace_seconds: 600,
  token_ttl_seconds: 300,
  // Spec 4.3; the public guide uses /api/dcm/notify.
  notify_path_prefix: SPEC_NOTIFY_PREFIX,
  // The service's public guide (issue 27): 1, 2, 4, 8, 16, 32 s, then every minute; 10 attempts.
  ...DELIVERY_SETTING_DEFAULTS,
  delivery_waits_seconds: [...DELIVERY_SETTING_DEFAULTS.delivery_waits_seconds],
};

/**
 * `current` with `partial` applied, validated as a whole; BAD_ARGUMENT naming the field
 * otherwise. Unknown fields are refused, so a typo is not silently ignored.
 */
export function applySettings(current: SandboxSettings, partial: unknown): SandboxSettings {
  if (partial === null || typeof partial !== 'object' || Array.isArray(partial)) {
    throw badRequest('settings must be a JSON object, e.g. {"token_ttl_seconds": 300}', WHOLE_ARGUMENT);
  }
  const unknown = Object.keys(partial).filter((k) => !(k in DEFAULT_SETTINGS));
  if (unknown[0] !== undefined) {
    throw badRequest(
      `unknown setting ${unknown.map((k) => JSON.stringify(k)).join(', ')}; the settings are ${Object.keys(DEFAULT_SETTINGS).join(', ')}`,
      unknown[0],
    );
  }
  const defined = Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined));
  const parsed = SandboxSettings.safeParse({ ...current, ...defined });
  if (!parsed.success) throw invalidArgument(parsed.error, 'settings');
  return parsed.data;
}
