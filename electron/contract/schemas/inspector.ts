import { z } from 'zod';

/** Where the inspector takes the public keys that verify a token's signature. */
export const KeySource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('none') }),
  z.object({
    type: z.literal('jwks-url'),
    url: z.url({ protocol: /^https?$/, error: 'jwks url must be an http(s) URL' }).max(2048),
  }),
  /** A pasted JWKS, a single JWK, or a PEM public key (SPKI or PKCS#1) or certificate. */
  z.object({
    type: z.literal('text'),
    text: z
      .string()
      .min(1)
      .max(256 * 1024),
  }),
]);
export type KeySource = z.infer<typeof KeySource>;

export const InspectInput = z.object({
  token: z.string().max(64 * 1024, 'token is longer than 64 KiB'),
  keySource: KeySource.optional(),
  expectedObj: z.string().max(1024).optional(),
  expectedSub: z.string().max(1024).optional(),
});
export type InspectInput = z.infer<typeof InspectInput>;

/**
 * The verification engine's checks, in the order they run (DESIGN.md "Bank endpoints";
 * electron/core/jwt/engine.ts). `lifetime` is the sandbox's own rule (exp - iat of at most 1 h).
 */
export const ENGINE_CHECK_IDS = [
  'present',
  'structure',
  'alg',
  'crit',
  'kid',
  'signature',
  'exp',
  'iat',
  'nbf',
  'lifetime',
  'flow',
  'obj',
  'sub',
] as const;

/** Ids a token report can carry: the engine's (but `present`) and the inspector's `units` advice. */
export const CHECK_IDS = [...ENGINE_CHECK_IDS.filter((id) => id !== 'present'), 'units'] as const;

/**
 * The answer judge's checks (DESIGN.md "Bank endpoints", "One judge of the bank's answer";
 * electron/core/answer/judge.ts), in the order they run: an HTTP answer arrived, within the 1 s
 * budget, status 200, a JSON object, then per route: /user_auth external_id, external_id_length,
 * key, phone, fields; /key key; /external_id external_id, external_id_length. The same ids on
 * every page: a callback's event, forward mode's verdicts, the sandbox's sign-in trace, the
 * conformance runner's valid cases and the walkthrough.
 */
export const ANSWER_CHECK_IDS = [
  'reachable',
  'budget',
  'status',
  'json',
  'external_id',
  'external_id_length',
  'key',
  'phone',
  'fields',
] as const;
export type AnswerCheckId = (typeof ANSWER_CHECK_IDS)[number];

/**
 * Ids stored before the one answer judge (issue 24): forward mode's `time` (now `budget`). Events
 * in older profiles still carry it, so it still parses and shows; nothing new is written with it.
 * (The sandbox's old `deadline` step is a trace step id, a free string, so it needs no entry.)
 */
export const LEGACY_ANSWER_CHECK_IDS = ['time'] as const;

/**
 * A callback whose token passed every check but whose answer took longer than the 1 s budget
 * (spec 4.2, 8) failed `budget` (issue 13 item 2: one verdict on every page).
 */
export const BUDGET_CHECK_ID = 'budget' satisfies AnswerCheckId;
/** Spec 4.2 / 8: each callback must answer within 1 second. */
export const CALLBACK_BUDGET_MS = 1000;

export const CheckId = z.enum([
  ...ENGINE_CHECK_IDS,
  'units',
  ...ANSWER_CHECK_IDS,
  ...LEGACY_ANSWER_CHECK_IDS,
]);
export type CheckId = z.infer<typeof CheckId>;
/** The token checks' ids (and the inspector's advice), apart from the answer's. */
export type TokenCheckId = Exclude<CheckId, AnswerCheckId | (typeof LEGACY_ANSWER_CHECK_IDS)[number]>;

export const CheckStatus = z.enum(['passed', 'failed', 'skipped']);
export type CheckStatus = z.infer<typeof CheckStatus>;

export const Check = z.object({
  id: CheckId,
  title: z.string(),
  status: CheckStatus,
  /** Why it passed, failed or was skipped, in words a person can act on. */
  detail: z.string(),
});
export type Check = z.infer<typeof Check>;

/** A remark of the inspector's beyond the verdict. */
export const Advice = z.object({
  id: z.enum(['lifetime', 'units']),
  title: z.string(),
  /** `warning`: worth fixing, though no verifier refuses the token for it. */
  level: z.enum(['ok', 'warning']),
  detail: z.string(),
});
export type Advice = z.infer<typeof Advice>;

export const TimeClaim = z.object({
  name: z.enum(['iat', 'exp', 'nbf']),
  /** The raw claim value (seconds per RFC 7519, unless `unit` says milliseconds). */
  value: z.number(),
  unit: z.enum(['s', 'ms']),
  /** ISO 8601 instant the value stands for, or null when it is not a usable number. */
  iso: z.string().nullable(),
  /** "in 4 min", "expired 3 min ago"-style wording relative to `inspectedAt`. */
  relative: z.string().nullable(),
});
export type TimeClaim = z.infer<typeof TimeClaim>;

export const Segments = z.object({ header: z.string(), payload: z.string(), signature: z.string() });

export const InspectReport = z.object({
  inspectedAt: z.string(),
  /** true when no check failed (skipped checks do not count as failures). */
  ok: z.boolean(),
  /** The raw base64url segments, when the token had three; null otherwise. */
  segments: Segments.nullable(),
  header: z.record(z.string(), z.unknown()).nullable(),
  payload: z.record(z.string(), z.unknown()).nullable(),
  times: z.array(TimeClaim),
  lifetimeSeconds: z.number().nullable(),
  /** What keys were used for the signature check, as a short description (kids found, source). */
  keys: z.object({
    /** `text`: pasted key text that is none of a JWKS, a JWK or PEM. */
    source: z.enum(['none', 'jwks-url', 'jwks', 'jwk', 'pem', 'text']),
    description: z.string(),
    kids: z.array(z.string()),
    /** Why the key source could not be loaded (absent when it loaded or none was given). */
    error: z.string().optional(),
  }),
  /** The engine's checks (electron/core/jwt/engine.ts): the same verdict every consumer gives. */
  checks: z.array(Check),
  /**
   * What the inspector adds beyond the verdict (a zero or long lifetime, times that look like
   * milliseconds); advice never changes `ok`.
   */
  advice: z.array(Advice).default([]),
});
export type InspectReport = z.infer<typeof InspectReport>;
