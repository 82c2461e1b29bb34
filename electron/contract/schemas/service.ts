import { z } from 'zod';
import { Guid } from './ids';
import { InspectReport } from './inspector';
import { KeyBits, Kid } from './keys';
import { PublicUrl } from './tunnel';

const Url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);
/** An http(s) URL without user:password@: it appears in history, on pages and in copied curl commands. */
export const ShownUrl = Url.refine((value) => !/^https?:\/\/[^/]*@/i.test(value), {
  error: 'must not carry user:password@: the URL appears in history and copied curl commands',
});
/**
 * The service's {base_url}: paths are appended to it (spec 4), so it carries no query or
 * fragment, and no user:password (it is shown in every copied curl command).
 */
const BaseUrl = ShownUrl.refine((value) => !/[?#]/.test(value), {
  error: 'must not have a query (?…) or fragment (#…): paths like /api/v1/… are appended to it',
});
/** The id of the built-in sandbox's environment (it always exists and cannot be removed). */
export const SANDBOX_ENVIRONMENT_ID = 'sandbox';

/** Where the console talks to the service: the built-in sandbox or a real environment. */
export const Environment = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['sandbox', 'real']),
  /** The service's {base_url}; for the sandbox, its listener URL (null while it is not running). */
  base_url: z.string().nullable(),
  counterparty_guid: z.string().nullable(),
  active_kid: z.string().nullable(),
  default_obj: z.string().nullable(),
  default_sub: z.string().nullable(),
  /** Set explicitly, or null to derive `{base_url}/api/v1/.well-known/jwks.json`. */
  service_jwks_url: z.string().nullable(),
  /** The JWKS URL in force (explicit or derived). */
  effective_jwks_url: z.string().nullable(),
  /**
   * Real environments: where this environment's service reaches the bank endpoints (what is
   * registered there as bank_auth_url and notification hosts; issue 14). Absent or null: the
   * tunnel's or the Bank page's.
   */
  public_url: z.string().nullable().optional(),
  /**
   * Keys that were this environment's active_kid and were replaced: retired here, whatever they
   * are elsewhere (DESIGN.md "Environments"). Absent from older cores: none.
   */
  retired_kids: z.array(z.string()).optional(),
  /** When a real environment was added (ISO 8601); null for the sandbox and older files. */
  created_at: z.string().nullable().optional(),
});
export type Environment = z.infer<typeof Environment>;

export const Environments = z.object({ active_id: z.string(), environments: z.array(Environment) });
export type Environments = z.infer<typeof Environments>;

export const SaveEnvironmentInput = z.object({
  /** Absent: create a real environment. The sandbox environment accepts only the per-profile fields. */
  id: z.string().optional(),
  name: z.string().trim().min(1, 'name must not be empty').max(100).optional(),
  /** A trailing slash is dropped (`https://svc.example/` is saved as `https://svc.example`). */
  base_url: BaseUrl.optional(),
  counterparty_guid: Guid.nullable().optional(),
  active_kid: Kid.nullable().optional(),
  default_obj: z.string().max(200).nullable().optional(),
  default_sub: z.string().max(200).nullable().optional(),
  service_jwks_url: Url.nullable().optional(),
  /** Real environments only: the bank endpoints' public URL for this environment (null clears it). */
  public_url: PublicUrl.nullable().optional(),
});

/** The composer (spec 2.4): flow = sign-in, obj, sub, iat, exp = iat + ttl. */
export const SignJwtInput = z.object({
  kid: Kid,
  obj: z.string().min(1, 'obj must not be empty').max(200),
  sub: z.string().min(1, 'sub must not be empty').max(200),
  /** Seconds; default 300. */
  ttl: z.number().int().min(1).max(86_400).optional(),
  /** Unix seconds; default now. */
  iat: z.number().int().min(0).max(4_102_444_800).optional(),
});

export const SignedJwt = z.object({
  token: z.string(),
  header: z.record(z.string(), z.unknown()),
  payload: z.record(z.string(), z.unknown()),
  /** Hints, not refusals: e.g. obj is neither an IBAN with a valid checksum nor an E.164 phone. */
  warnings: z.array(z.string()),
  /** `CX-Authorization: <token>` */
  header_line: z.string(),
  /** A curl command calling authenticate in the active environment (null without base_url/guid). */
  curl: z.string().nullable(),
});
export type SignedJwt = z.infer<typeof SignedJwt>;

/** One request to the service and its answer, as recorded in the history. */
export const Exchange = z.object({
  id: z.string(),
  at: z.string(),
  environment_id: z.string(),
  operation: z.enum(['authenticate', 'register-jwk', 'update-jwk', 'list-jwks', 'fetch-jwks']),
  request: z.object({
    method: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().nullable(),
  }),
  response: z
    .object({ status: z.number(), headers: z.record(z.string(), z.string()), body: z.string() })
    .nullable(),
  duration_ms: z.number(),
  /** 2xx (and, for authenticate, a session_token; for the JWKS, a JWK set). */
  ok: z.boolean(),
  /** Network error text, or the service's own error text, raw (or, for a 2xx that is not the endpoint's answer, what is missing). */
  error: z.string().nullable(),
  /** When the cause is known, what it probably means ("401 after a rotation: kid not registered yet?"). */
  explanation: z.string().nullable(),
  curl: z.string(),
  /** The kid whose JWT went in CX-Authorization (null when unsigned or a pasted token had none). */
  signing_kid: z.string().nullable().optional(),
  /** register-jwk / update-jwk: the kid of the JWK sent, and the jwk_guid (PUT's path, POST's answer). */
  jwk_kid: z.string().nullable().optional(),
  jwk_guid: z.string().nullable().optional(),
});
export type Exchange = z.infer<typeof Exchange>;

export const AuthenticateInput = z.object({
  /** A bank JWT to send as is; or compose one with `kid`/`obj`/`sub`. */
  token: z
    .string()
    .min(1)
    .max(64 * 1024)
    .optional(),
  kid: Kid.optional(),
  obj: z.string().min(1).max(200).optional(),
  sub: z.string().min(1).max(200).optional(),
});

export const AuthenticateResult = z.object({
  exchange: Exchange,
  session_token: z.string().nullable(),
  /** The session_token decoded and checked against the service JWKS in place. */
  session_report: InspectReport.nullable(),
});

export const JwkOperationInput = z.object({
  kid: Kid,
  jwk_guid: Guid.optional(),
  signing_kid: Kid.optional(),
});

/** Rotation (issue 4): generate next → PUT it signed by the current key → authenticate with it → activate → retire the old. */
export const RotationStep = z.object({
  id: z.enum(['generate', 'register', 'prove', 'activate', 'retire']),
  title: z.string(),
  /** pending: not run (the rotation stopped earlier); skipped: not needed (e.g. the kid was registered already). */
  status: z.enum(['pending', 'passed', 'failed', 'skipped']),
  detail: z.string(),
  exchange_id: z.string().nullable(),
});
export type RotationStep = z.infer<typeof RotationStep>;
export const Rotation = z.object({
  environment_id: z.string(),
  from_kid: z.string(),
  to_kid: z.string().nullable(),
  /**
   * done: the new key is active (a failed retire step after that is reported on the step: the
   * old key then still has to be retired by hand); failed: stopped at a step before activation,
   * the old key is still active and the environment unchanged.
   */
  state: z.enum(['done', 'failed']),
  steps: z.array(RotationStep),
  started_at: z.string(),
  finished_at: z.string(),
});
export type Rotation = z.infer<typeof Rotation>;
export const RotateInput = z.object({
  /** Reuse a key already generated (status next), e.g. to retry after a refusal. */
  next_kid: Kid.optional(),
  alg: z.enum(['RS256', 'RS384', 'RS512', 'PS256']).optional(),
  bits: KeyBits.optional(),
  expires: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
    .optional(),
});
