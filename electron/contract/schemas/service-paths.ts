/**
 * The service's well-known path the console derives URLs from (spec 4.1 #3,
 * `GET {base_url}/api/v1/.well-known/jwks.json`), written once for the core (environments, the
 * sandbox's route, the conformance runner's key server) and the pages that show the URL.
 */

/** Spec 4.1 #3, under {base_url}. */
export const JWKS_PATH = '/api/v1/.well-known/jwks.json';

/**
 * `{base_url}/api/v1/.well-known/jwks.json`, the JWKS URL derived from a base URL (its trailing
 * slashes dropped first).
 *
 * @example
 * derivedJwksUrl('https://dets.staging.example/'); // 'https://dets.staging.example/api/v1/.well-known/jwks.json'
 */
export function derivedJwksUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${JWKS_PATH}`;
}

/**
 * Spec 4.3: where the service posts notifications under the bank's URL (the public guide uses
 * /api/dcm/notify; the prefix is a setting, this by default).
 */
export const SPEC_NOTIFY_PREFIX = '/api/svc/notify';

/** The bank's callback routes (spec 4.2), which a notification prefix must never hide. */
export const CALLBACK_ROUTES: readonly string[] = ['/user_auth', '/key', '/external_id'];

/** A prefix's shape: plain segments, no trailing slash, at most NOTIFY_PREFIX_MAX characters. */
export const NOTIFY_PREFIX_PATTERN = /^(\/[A-Za-z0-9._~-]+)+$/;

export const NOTIFY_PREFIX_MAX = 200;

/** What a prefix of the wrong shape is told. */
export const NOTIFY_PREFIX_SHAPE = `must be an absolute path of plain segments without a trailing slash: a path like ${SPEC_NOTIFY_PREFIX} (spec 4.3) or /api/dcm/notify (the service guide)`;

/**
 * What is wrong with a notification path prefix, or null: the one rule for the bank's setting,
 * the sandbox's, `conformance --notify-prefix`, the Conformance page and a scenario's
 * `notify_prefix` — an absolute path of plain segments, no trailing slash, at most 200
 * characters, and not one of the callback routes.
 *
 * @example
 * notifyPrefixProblem('/api/dcm/notify'); // null
 * notifyPrefixProblem('/api/svc/notify/'); // 'must be an absolute path of plain segments …'
 */
export function notifyPrefixProblem(prefix: string): string | null {
  if (!NOTIFY_PREFIX_PATTERN.test(prefix) || prefix.length > NOTIFY_PREFIX_MAX) return NOTIFY_PREFIX_SHAPE;
  if (CALLBACK_ROUTES.includes(prefix)) return `${prefix} would hide a callback route`;
  return null;
}
