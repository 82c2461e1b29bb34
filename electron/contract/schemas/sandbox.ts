import { z } from 'zod';
import { Guid } from './ids';
import {
  CALLBACK_ROUTES,
  NOTIFY_PREFIX_MAX,
  NOTIFY_PREFIX_PATTERN,
  NOTIFY_PREFIX_SHAPE,
} from './service-paths';
import { HttpCut } from './events';
import { DeliveryFaults, DeliveryTimeoutMs, Ladder, SequenceStep } from './delivery';

/**
 * A notification path prefix wherever one is given (the sandbox's setting, the Conformance page,
 * `conformance --notify-prefix`, a scenario file): the one rule of service-paths.ts, whose
 * `notifyPrefixProblem` the bank's own setting applies.
 */
export const NotifyPrefix = z
  .string()
  .max(NOTIFY_PREFIX_MAX, NOTIFY_PREFIX_SHAPE)
  .regex(NOTIFY_PREFIX_PATTERN, NOTIFY_PREFIX_SHAPE)
  .superRefine((prefix, ctx) => {
    if (CALLBACK_ROUTES.includes(prefix))
      ctx.addIssue({ code: 'custom', message: `${prefix} would hide a callback route` });
  });

/** A public RSA JWK as the spec (2.1) lists it; extra members are kept but private ones are refused by the core. */
export const PublicJwk = z.looseObject({
  kty: z.string(),
  n: z.string().optional(),
  e: z.string().optional(),
  kid: z.string().optional(),
  alg: z.string().optional(),
  use: z.string().optional(),
});
export type PublicJwk = z.infer<typeof PublicJwk>;

const Url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);
export const RegisteredJwk = z.object({
  jwk_guid: z.string(),
  jwk: PublicJwk,
  registered_at: z.string(),
  /** How it arrived: onboarding, POST .../jwk (guide), PUT .../jwk/{jwk_guid} (spec 4.1 #1). */
  via: z.enum(['onboarding', 'post', 'put']),
});
export type RegisteredJwk = z.infer<typeof RegisteredJwk>;

export const Counterparty = z.object({
  counterparty_guid: z.string(),
  created_at: z.string(),
  bank_auth_url: z.string().nullable(),
  bank_sender_url: z.string().nullable(),
  bank_receiver_url: z.string().nullable(),
  jwks: z.array(RegisteredJwk),
});
export type Counterparty = z.infer<typeof Counterparty>;

export const SandboxKey = z.object({
  kid: z.string(),
  created_at: z.string(),
  /** active signs; grace is still published after a rotation until `retires_at`, then dropped. */
  status: z.enum(['active', 'grace']),
  retires_at: z.string().nullable(),
  /** The public JWK as published in the sandbox's JWKS. */
  jwk: PublicJwk,
});
export type SandboxKey = z.infer<typeof SandboxKey>;

export const TraceStep = z.object({
  /**
   * Stable id of the rule or action: bank_jwt, bank_url, then the answer judge's checks
   * (ANSWER_CHECK_IDS: reachable, budget, status, json, external_id, external_id_length, key,
   * phone, fields), or delivered. Traces stored before the answer judge may carry `deadline`
   * (now `budget`): a free string, so they still parse and show.
   */
  id: z.string(),
  title: z.string(),
  status: z.enum(['passed', 'failed', 'skipped', 'info']),
  detail: z.string(),
  at: z.string(),
  duration_ms: z.number().nullable(),
  /** What was sent and what came back, when the step is an HTTP exchange (secrets redacted). */
  request: z
    .object({
      method: z.string(),
      url: z.string(),
      headers: z.record(z.string(), z.string()),
      body: z.string().nullable(),
      /** Present when the headers were cut to keep the trace bounded (DESIGN.md "Storage"). */
      cut: HttpCut.optional(),
    })
    .nullable(),
  response: z
    .object({
      status: z.number(),
      headers: z.record(z.string(), z.string()),
      body: z.string().nullable(),
      cut: HttpCut.optional(),
    })
    .nullable(),
});
export type TraceStep = z.infer<typeof TraceStep>;

export const Trace = z.object({
  id: z.string(),
  at: z.string(),
  kind: z.enum(['sign-in', 'notify']),
  counterparty_guid: z.string(),
  ok: z.boolean(),
  /** The id of the first failed step, null when ok. */
  failed: z.string().nullable(),
  duration_ms: z.number(),
  steps: z.array(TraceStep),
});
export type Trace = z.infer<typeof Trace>;

/**
 * The longest lifetime (exp - iat) the sandbox accepts for a bank JWT by default (DESIGN.md
 * "Sandbox service": at most 1 hour); its `max_lifetime_seconds` setting starts here, and the
 * composer and the inspector (core and page) warn past it. Written once.
 */
export const MAX_BANK_JWT_LIFETIME_SECONDS = 3600;

const WAIT_WORDS = 'each wait must be a number of seconds from 0 to 86400';
const ATTEMPTS_WORDS = 'must be a whole number of attempts from 1 to 100';

export const SandboxSettings = z.object({
  /** Longest accepted bank JWT lifetime, exp - iat (DESIGN.md: at most 1 hour). */
  max_lifetime_seconds: z.number().int().min(1).max(86_400),
  /** How long a rotated-out sandbox key stays published. */
  key_grace_seconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400),
  /** Lifetime of the session_token and X-Session-ID the sandbox signs. */
  token_ttl_seconds: z.number().int().min(1).max(86_400),
  /** Where notifications are posted under the bank URL (spec 4.3; the guide uses /api/dcm/notify). */
  notify_path_prefix: NotifyPrefix,
  /**
   * The ladder's waits before attempts 2, 3, … in seconds (issue 27: the guide's 1, 2, 4, 8, 16,
   * 32, then 60); past the list, its last wait repeats. Settings stored before issue 27 take the
   * guide's values (sandbox/state-schema.ts).
   */
  delivery_waits_seconds: z
    .array(z.number({ error: WAIT_WORDS }).min(0, WAIT_WORDS).max(86_400, WAIT_WORDS), {
      error: 'must be a list of waits in seconds, e.g. [1, 2, 4, 8, 16, 32, 60]',
    })
    .min(1, 'must list at least one wait in seconds')
    .max(100, 'must list at most 100 waits'),
  /** The most attempts of the `service` ladder, the first included (the guide: 10). */
  delivery_max_attempts: z
    .number({ error: ATTEMPTS_WORDS })
    .int(ATTEMPTS_WORDS)
    .min(1, ATTEMPTS_WORDS)
    .max(100, ATTEMPTS_WORDS),
  /** No answer within this long counts as no answer (DESIGN.md: 5,000 ms). */
  delivery_timeout_ms: DeliveryTimeoutMs,
});
export type SandboxSettings = z.infer<typeof SandboxSettings>;

export const SandboxStatus = z.object({
  /** The sandbox listener's base URL in this process, null when it is not running here. */
  url: z.string().nullable(),
  /** vault: the signing key survives restarts; memory: a restart publishes a new key. */
  key_persistence: z.enum(['vault', 'memory']),
  keys: z.array(SandboxKey),
  counterparties: z.array(Counterparty),
  settings: SandboxSettings,
});
export type SandboxStatus = z.infer<typeof SandboxStatus>;

/**
 * What `sandbox.changed` carries: which part changed and the sizes, not the whole status. A
 * listener refetches `sandbox.status` when it needs the lists, so a change costs O(1) whatever
 * the number of counterparties (issue 12 item 6: a large sandbox never blocks the process).
 */
export const SandboxChange = z.object({
  url: z.string().nullable(),
  changed: z.enum(['counterparties', 'keys', 'settings']),
  counterparty_count: z.number().int().nonnegative(),
  key_count: z.number().int().nonnegative(),
});
export type SandboxChange = z.infer<typeof SandboxChange>;

export const OnboardInput = z.object({
  counterparty_guid: Guid.optional(),
  jwk_guid: Guid.optional(),
  jwk: PublicJwk,
  bank_auth_url: Url.optional(),
  bank_sender_url: Url.optional(),
  bank_receiver_url: Url.optional(),
});
export type OnboardInput = z.infer<typeof OnboardInput>;

export const UpdateCounterpartyInput = z.object({
  counterparty_guid: Guid,
  bank_auth_url: Url.nullable().optional(),
  bank_sender_url: Url.nullable().optional(),
  bank_receiver_url: Url.nullable().optional(),
});

export const DeleteCounterpartyInput = z.object({ counterparty_guid: Guid });

export const SignInInput = z.object({
  counterparty_guid: Guid,
  /** The bank's JWT, as it would go in CX-Authorization. */
  token: z
    .string()
    .min(1)
    .max(64 * 1024),
});

export const SignInResult = z.object({
  ok: z.boolean(),
  /** The user data the bank answered, when every rule passed. */
  user: z.record(z.string(), z.unknown()).nullable(),
  failed: z.string().nullable(),
  trace: Trace,
});
export type SignInResult = z.infer<typeof SignInResult>;

export const NotifyEvent = z.enum(['pay-in', 'pay-out', 'transfer']);
/**
 * A deliberately malformed notification body, to test the bank's rejection path (issue 13,
 * item 6): `not-json` is not JSON at all, `no-transaction-id` is a JSON object without
 * transaction_id, `bad-uuid` has a transaction_id that is not a UUID (spec 2.7).
 */
export const MalformedNotification = z.enum(['not-json', 'no-transaction-id', 'bad-uuid']);
export type MalformedNotification = z.infer<typeof MalformedNotification>;

export const NotifyInput = z.object({
  counterparty_guid: Guid,
  event: NotifyEvent,
  transaction_id: z.uuid().optional(),
  to: z.enum(['sender', 'receiver']).optional(),
  /** Send this malformed body instead of `{"transaction_id": "<uuid>"}`; the bank should refuse it. */
  malformed: MalformedNotification.optional(),
  /** `service` (default): retried on the guide's ladder; `once`: one attempt (issue 27). */
  ladder: Ladder.optional(),
  faults: DeliveryFaults.optional(),
  /**
   * More notifications of the same transaction_id, each sent once the one before has had its
   * first attempt judged: `event: "pay-out", sequence: [{event: "pay-in"}]` is a pay-out before
   * its pay-in (issue 27 item 2, reordering).
   */
  sequence: z.array(SequenceStep).min(1).max(5).optional(),
});
export type NotifyInput = z.infer<typeof NotifyInput>;

export const NotifyResult = z.object({
  transaction_id: z.string(),
  /** The delivery this notification is (GET /sandbox/v1/deliveries/{delivery_id}). */
  delivery_id: z.string(),
  url: z.string(),
  /** The bank's HTTP status, null when it could not be reached. */
  status: z.number().nullable(),
  duration_ms: z.number(),
  error: z.string().nullable(),
  trace: Trace,
  /** With `sequence`: the later notifications' first attempts, in the order they were sent. */
  sequence: z
    .array(
      z.object({
        delivery_id: z.string(),
        event: z.string(),
        url: z.string(),
        status: z.number().nullable(),
        error: z.string().nullable(),
      }),
    )
    .optional(),
});
export type NotifyResult = z.infer<typeof NotifyResult>;

export const TracesInput = z.object({
  counterparty_guid: Guid.optional(),
  limit: z.number().int().min(1).max(1000).optional(),
});
