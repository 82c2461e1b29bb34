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
