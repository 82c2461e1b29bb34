/**
 * The token engine's inputs, verdict and the state of one run (engine.ts): what a caller
 * gives (a token, its keys, what obj and sub must be, a lifetime cap) and what it gets back.
 */
import { ENGINE_CHECK_IDS, type Check } from '../../contract/schemas/inspector';
import type { DecodedToken } from './decode';
import type { KeySet } from './key-source';
import type { AllowedAlg } from './policy';

export { ENGINE_CHECK_IDS };
export type EngineCheckId = (typeof ENGINE_CHECK_IDS)[number];

/**
 * Where the keys come from. `none`: the caller has none (the inspector without a key source:
 * kid is only required to be there, the signature is skipped); `unavailable`: the key source
 * failed to load (kid fails with why); `set`: a key set in hand; `lookup`: a key set found per
 * kid (the service JWKS client, which may fetch within the caller's budget).
 */
export type EngineKeys =
  | { kind: 'none' }
  | { kind: 'unavailable'; detail: string }
  | { kind: 'set'; set: KeySet }
  | {
      kind: 'lookup';
      forKid: (
        kid: string | undefined,
      ) =>
        | Promise<{ set: KeySet | null; detail: string | null }>
        | { set: KeySet | null; detail: string | null };
    };

/** A role's own judgement of obj or sub, after the shared one (present, a non-empty string). */
export type ClaimJudge = (
  value: string,
  payload: Record<string, unknown>,
) => { ok: boolean; detail: string } | Promise<{ ok: boolean; detail: string }>;

export interface VerifyRequest {
  /** The raw header value; undefined when the header is absent. */
  token: string | undefined;
  /** The header's name, for messages: "X-Session-ID", "CX-Authorization", or "the token". */
  header: string;
  /** Why the header matters, for the `present` failure ("the service sends its JWT there…"). */
  headerWhy?: string;
  /** The `present` failure for an empty value, when "the … header is empty" does not fit. */
  emptyDetail?: string;
  keys: EngineKeys;
  nowSeconds: number;
  /** Clock leeway on exp, iat and nbf (default 60 s). */
  leewaySeconds?: number;
  obj?: ClaimJudge;
  sub?: ClaimJudge;
  /** The sandbox's cap on exp - iat (checks.ts checkSandboxLifetime); the lifetime check runs only when given. */
  maxLifetimeSeconds?: number;
  /** Stop at the first failure (endpoints) or run every check there is input for (inspector). */
  mode: 'first-failure' | 'all';
  /**
   * Passed checks carry no detail (a callback's checks are rebuilt when its event is read), so
   * the hot path builds words only for a failure. The verdict is the same either way: a check
   * whose quick test does not pass runs in full.
   */
  lean?: boolean;
}

export interface EngineVerdict {
  ok: boolean;
  /** The first failed check, or null. */
  failed: EngineCheckId | null;
  /** The first failure's detail, or "all checks passed". */
  detail: string;
  /** Every check in order (failed-first mode: the ones after the failure are skipped). */
  checks: Check[];
  decoded: DecodedToken | null;
  /** The key that verified the signature. */
  key: { label: string } | null;
  /** The token's alg, when it is an allowed one. */
  alg: AllowedAlg | null;
  /** The key source's note (a stale JWKS, a slow host), when there is one. */
  keysNote: string | null;
}

/** One verification under way: the checks so far and what they found (engine.ts's phases fill it). */
export interface EngineRun {
  readonly request: VerifyRequest;
  readonly checks: Check[];
  /** First-failure mode: stop at the first failed check. */
  readonly stop: boolean;
  failed: Check | null;
  decoded: DecodedToken | null;
  /** The token's alg, when it is an allowed one (set after the alg check). */
  alg: AllowedAlg | null;
  /** The key set the kid was found in (set by the kid check). */
  set: KeySet | null;
  usedKey: { label: string } | null;
  keysNote: string | null;
}
