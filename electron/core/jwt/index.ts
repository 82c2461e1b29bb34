/**
 * JWT building blocks of the core: the inspector, and the pieces the bank endpoints'
 * X-Session-ID verifier, the sandbox and the composer reuse (policy, decoding, key sets, JWKS
 * fetching, signature verification, individual checks, time wording).
 */
export {
  ALLOWED_ALGS,
  HMAC_ALGS,
  SERVICE_ALG,
  LEEWAY_SECONDS,
  SIGN_IN_FLOW,
  GUIDE_FLOWS,
  MILLISECONDS_THRESHOLD,
  isAllowedAlg,
  judgeAlg,
  type AllowedAlg,
  type AlgVerdict,
} from './policy';
export {
  decodeCompact,
  base64urlProblem,
  type DecodedToken,
  type DecodeProblem,
  type DecodeProblemCode,
} from './decode';
export {
  fetchJwks,
  otherOrigin,
  parseJwksText,
  checkJwksShape,
  JWKS_TIMEOUT_MS,
  JWKS_MAX_BYTES,
  JWKS_MAX_REDIRECTS,
  type FetchJwksOptions,
  type JwksDocument,
} from './fetch-jwks';
export { readPemPublicKey, pkcs1ToSpki, looksLikePem, type PemPublicKey, type PemKind } from './pem';
export {
  keySetFromJwks,
  keySetFromJwk,
  keySetFromPem,
  keySetFromText,
  privateMembers,
  type KeySet,
  type KeySetSource,
  type KeyLookup,
  type KeyCandidates,
  type VerifyKey,
  type RejectedKey,
} from './key-source';
export { verifySignature, signedParts, type SignatureVerdict, type SignedParts } from './signature';
export {
  verifyToken,
  equalsJudge,
  notChecked,
  notCheckedWithout,
  ENGINE_CHECK_IDS,
  type EngineCheckId,
  type EngineKeys,
  type EngineVerdict,
  type VerifyRequest,
  type ClaimJudge,
} from './engine';
export {
  modulusBits,
  rsaRuleProblem,
  rsaJwkProblem,
  rsaKeyObjectProblem,
  RSA_KEY_RULES,
  MIN_RSA_BITS,
} from './rsa';
export { JwksClient } from './jwks-client';
export { JwksPool, type JwksPoolOptions, type JwksSource, type PoolLookup } from './jwks-pool';
export {
  JWKS_MIN_INTERVAL_MS,
  JWKS_MAX_AGE_MS,
  JWKS_MAX_BACKOFF_MS,
  JWKS_CLIENT_FETCH_TIMEOUT_MS,
  type JwksClientOptions,
  type JwksLookup,
  type JwksState,
  type RejectedJwk,
} from './jwks-types';
export { sharedJwksClient } from './jwks-shared';
export * from './checks';
export {
  formatDuration,
  relativeTo,
  describeClaimTime,
  timeUnit,
  isoOrNull,
  type TimeClaimName,
} from './time';
export { inspectToken, type InspectDeps } from './inspect';
export { objHints } from './obj-hints';
export { describeType, isBlankClaim, MAX_BANK_JWT_LIFETIME_SECONDS } from './policy';
export { publicRsaJwk } from './rsa';
export { jwkMemberProblem } from './jwk-members';
