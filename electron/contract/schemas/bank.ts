import { z } from 'zod';
import { ShownUrl } from './service';

/** A test customer, as the `--users` file holds them (DESIGN.md "Command line"). */
export const Customer = z.object({
  obj: z.string().min(1, 'obj must not be empty').max(200),
  sub: z.string().min(1).max(200).optional(),
  /** Spec 2.5 / 8: up to 500 symbols, counted as Unicode code points. */
  external_id: z
    .string()
    .min(1, 'external_id is required')
    .refine((s) => [...s].length <= 500, 'external_id is longer than 500 symbols (spec 8: up to 500)'),
  phone: z.string().min(1, 'phone is required').max(100),
  /** The user's secret key (spec 2.5): kept in the vault when one is available, never shown in lists. */
  key: z.string().min(1, 'key is required').max(10_000),
  first_name: z.string().max(200).optional(),
  last_name: z.string().max(200).optional(),
  email: z.string().max(320).optional(),
});
export type Customer = z.infer<typeof Customer>;

/** A customer as the renderer sees it: the secret key masked (only its length, e.g. "24 characters"). */
export const CustomerView = Customer.omit({ key: true }).extend({ key_hint: z.string() });

/**
 * Exporting customers WITH their secret keys is an explicit, confirmed action (issue 13 item 7):
 * the caller repeats this phrase, so no click or script does it by accident.
 */
export const EXPORT_WITH_KEYS_CONFIRMATION = 'include secret keys';
export const CustomersWithKeysInput = z.object({
  confirm: z.literal(EXPORT_WITH_KEYS_CONFIRMATION, {
    error: `confirm must be "${EXPORT_WITH_KEYS_CONFIRMATION}"`,
  }),
});

/** A file waiting for one fetch at `path` (relative to the host), until `expires_at`. */
export const PreparedDownload = z.object({
  path: z.string(),
  filename: z.string(),
  count: z.number().int(),
  expires_at: z.string(),
});
export type PreparedDownload = z.infer<typeof PreparedDownload>;

export const CallbackRoute = z.enum(['user_auth', 'key', 'external_id']);
export const NotifyRoute = z.enum(['pay-in', 'pay-out', 'transfer']);

/** Deliberate misbehaviour per route, to see how a service copes with a bad bank (off by default). */
export const Behaviour = z.object({
  delay_ms: z.number().int().min(0).max(30_000).optional(),
  /** Answer this status instead (and an empty or error body). */
  status: z.number().int().min(100).max(599).optional(),
  /** /user_auth: leave this required field out. */
  omit_field: z.enum(['external_id', 'key', 'phone']).optional(),
  /** /user_auth, /external_id: answer an external_id of 501 symbols. */
  long_external_id: z.boolean().optional(),
});
export const Behaviours = z.record(z.string(), Behaviour);

export const ForwardSettings = z.object({
  /** The engineer's own backend; callbacks and notifications are passed on and judged. null = off. */
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2048)
    .nullable(),
});

/**
 * A service JWKS key left out of the key set (DESIGN.md "Bank endpoints"): it breaks the RSA key
 * rules, or cannot be used at all; `kid` is null when the key has none.
 */
export const RejectedJwk = z.object({ kid: z.string().nullable(), reason: z.string() });
export type RejectedJwk = z.infer<typeof RejectedJwk>;

/**
 * The service JWKS as the bank endpoints hold it (the JWKS client's state), on the Bank page and
 * in each callback event. `rejected` and `duplicates` (kids that appear more than once) came
 * later: optional, so events stored before them still parse.
 */
export const JwksStatus = z.object({
  kids: z.array(z.string()),
  fetched_at: z.string().nullable(),
  stale: z.boolean(),
  error: z.string().nullable(),
  rejected: z.array(RejectedJwk).optional(),
  duplicates: z.array(z.string()).optional(),
});
export type JwksStatus = z.infer<typeof JwksStatus>;

export const BankStatus = z.object({
  url: z.string().nullable(),
  notify_path_prefix: z.string(),
  /** The JWKS URL in force: the bank's own setting, else --service-jwks-url, the environment's, the sandbox's. */
  service_jwks_url: z.string().nullable(),
  /** The bank's own JWKS URL setting (bank.setServiceJwksUrl), or null to follow the flag or environment. */
  service_jwks_setting: z.string().nullable(),
  jwks: JwksStatus,
  customers: z.number().int(),
  behaviours: Behaviours,
  forward: ForwardSettings,
  /** Why something is off, e.g. customers kept in memory only because no vault can seal their keys. */
  warnings: z.array(z.string()).optional(),
});
export type BankStatus = z.infer<typeof BankStatus>;

/**
 * The bank's own service JWKS URL (issue 13 item 6): null follows --service-jwks-url or the active
 * environment. No user:password: the URL is shown on the pages and in the evidence.
 */
export const ServiceJwksSetting = z.object({
  url: ShownUrl.nullable(),
});

/** What a change of the bank's JWKS URL did, so the page can say it and put it back. */
export const ServiceJwksChange = z.object({
  /** The bank's own setting before the change (null: it followed the flag or environment). */
  previous_setting: z.string().nullable(),
  /** The URL in force before the change. */
  previous_url: z.string().nullable(),
  /** The bank's own setting now. */
  setting: z.string().nullable(),
  /** The URL in force now. */
  url: z.string().nullable(),
});
export type ServiceJwksChange = z.infer<typeof ServiceJwksChange>;

/**
 * A fresh X-Session-ID for a stored sandbox callback (issue 26 item 5: a copied curl runs only
 * while its token lives): the same claims signed again by the sandbox, with when it expires.
 */
export const FreshSession = z.object({
  /** The compact JWS to send as X-Session-ID. */
  token: z.string(),
  /** Its exp, ISO 8601: after it the bank answers 401 `exp`. */
  expires_at: z.string(),
  /** The sandbox key that signed it. */
  kid: z.string().nullable(),
});
export type FreshSession = z.infer<typeof FreshSession>;
