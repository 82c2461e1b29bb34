/**
 * URL paths more than one domain derives from: the service's JWKS path (environments, the
 * sandbox's route, the conformance runner's key server; the contract holds it, since the pages
 * show it too).
 */
export { derivedJwksUrl, JWKS_PATH } from '../../contract/schemas/service-paths';
