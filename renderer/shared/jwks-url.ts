/**
 * Where a service publishes its keys (spec 4.1 #3: `GET {base_url}/api/v1/.well-known/jwks.json`),
 * written once for every page that shows or derives one: the sandbox's, an environment's
 * derived from its base URL, the conformance runner's on loopback.
 */
export const JWKS_PATH = '/api/v1/.well-known/jwks.json';

/**
 * The JWKS URL under a base URL (trailing slashes dropped), as the core derives it.
 *
 * @example
 * jwksUrlOf('https://dets.example.com/'); // 'https://dets.example.com/api/v1/.well-known/jwks.json'
 */
export function jwksUrlOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${JWKS_PATH}`;
}
