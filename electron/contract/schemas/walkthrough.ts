import { z } from 'zod';
import { Guid } from './ids';
import { InspectReport } from './inspector';
import { Environment } from './service';
import { ProbeResult, PublicUrlSource } from './tunnel';

/**
 * The guided onboarding walkthrough (issue 6): the registration flow of spec 4.4 and the work
 * around it, as eight steps whose state is derived from real events (stored keys, exchanges with
 * the service, callbacks and notifications the bank endpoints recorded, rotations), never from
 * checkboxes.
 */
export const WALKTHROUGH_STEP_IDS = [
  'key',
  'register',
  'compose',
  'authenticate',
  'callbacks',
  'sign-in',
  'notifications',
  'rotate',
] as const;
export const StepId = z.enum(WALKTHROUGH_STEP_IDS);
export type StepId = z.infer<typeof StepId>;

/**
 * pending: nothing proves it yet (and nothing failed); done: the event that proves it exists;
 * failed: its last attempt failed (reason and fix say why and what to do); waiting: the
 * service's part, the console waits for it (a real environment).
 */
export const StepState = z.enum(['pending', 'done', 'failed', 'waiting']);
export type StepState = z.infer<typeof StepState>;

/** One fact shown under a step: "kid", "fingerprint", "counterparty_guid"… */
export const StepFact = z.object({ label: z.string(), value: z.string() });
export type StepFact = z.infer<typeof StepFact>;

export const WalkthroughStep = z.object({
  id: StepId,
  number: z.number().int().min(1).max(8),
  title: z.string(),
  /** What the service expects and why, in plain words. */
  explanation: z.string(),
  /** The spec sections it follows, e.g. "spec 4.4 #2, 2.4". */
  spec: z.string(),
  state: StepState,
  /** One line: what proved it, what is missing, or what the console waits for. */
  summary: z.string(),
  /** failed: what went wrong (the service's or the bank's own words where there are some). */
  reason: z.string().nullable(),
  /** failed (and some pending steps): what to do about it. */
  fix: z.string().nullable(),
  /** waiting: what the console is waiting for from the service. */
  waiting_for: z.string().nullable(),
  /** When the proving (or failing) event happened. */
  at: z.string().nullable(),
  /** An earlier step that is not done yet and this one builds on. */
  needs: StepId.nullable(),
  /** The label of the step's one action ("Create the signing key"), null when there is none here. */
  action: z.string().nullable(),
  /** What the action needs typed (a real environment's counterparty_guid). */
  action_input: z.enum(['counterparty_guid', 'bank_url']).nullable(),
  facts: z.array(StepFact),
  /** Related event ids (the exchange, the callback, the notifications), for links and the pack. */
  event_ids: z.array(z.string()),
  /**
   * A real environment's steps the service team starts on their side (6 and 7, issue 26 item 3):
   * who starts it, and the message to send them asking for it (copyable). Absent elsewhere.
   */
  service_request: z.object({ who: z.string(), message: z.string() }).nullable().optional(),
});
export type WalkthroughStep = z.infer<typeof WalkthroughStep>;

/** The bank JWT the walkthrough composed (step 3), as the composer signed it. */
export const ComposedToken = z.object({
  at: z.string(),
  kid: z.string(),
  obj: z.string(),
  sub: z.string(),
  token: z.string(),
  header: z.record(z.string(), z.unknown()),
  payload: z.record(z.string(), z.unknown()),
});
export type ComposedToken = z.infer<typeof ComposedToken>;

/**
 * A real environment's road in (issue 14 item 5): what to register with the service, whether it
 * can reach the bank endpoints there (the tunnel's probe from outside), and forward mode. The
 * public URL and the probe are the tunnel's (`tunnel.status`), forward mode the bank's.
 */
export const WalkthroughReach = z.object({
  /** The public URL in force (null: none, and `bank_auth_url` is the listener's own URL). */
  public_url: z.string().nullable(),
  public_url_source: PublicUrlSource.nullable(),
  /** What to register as bank_auth_url (spec 4.2), null when the bank endpoints do not listen here. */
  bank_auth_url: z.string().nullable(),
  /** The notification URLs (spec 4.3), under the bank's notification prefix. */
  notification_urls: z.array(z.string()),
  /** Why registering this URL will not work (a loopback listener without a public URL), null when fine. */
  warning: z.string().nullable(),
  /** The latest probe from outside of this public URL since the reset, null when none. */
  probe: ProbeResult.nullable(),
  /** Forward mode: the engineer's backend the bank endpoints pass callbacks on to, null when off. */
  forward_url: z.string().nullable(),
});
export type WalkthroughReach = z.infer<typeof WalkthroughReach>;

/** One value of the onboarding block: what it is for and the value, each copied on its own. */
export const OnboardingValue = z.object({
  id: z.enum(['public_jwk', 'bank_auth_url', 'bank_sender_url', 'bank_receiver_url', 'notify_prefix']),
  label: z.string(),
  value: z.string(),
});
export type OnboardingValue = z.infer<typeof OnboardingValue>;

/**
 * A real environment's onboarding, in the order it happens (issue 26 item 3): the public URL
 * first (a tunnel, --public-url or the engineer's own front), then one block of what to send the
 * service team (the public JWK, bank_auth_url, sender and receiver URLs, the notification prefix),
 * then the counterparty_guid they answer with.
 */
export const WalkthroughOnboarding = z.object({
  /** The public URL in force, null while there is none (the block then says to make one first). */
  public_url: z.string().nullable(),
  public_url_source: PublicUrlSource.nullable(),
  /** Why the block is not ready to send yet (no key, no public URL), null when it is. */
  missing: z.string().nullable(),
  /** The values, each with its own copy; empty members are left out. */
  values: z.array(OnboardingValue),
  /** The whole block as one text to copy (a message to the service team). */
  text: z.string(),
  /** What comes back: the counterparty_guid, once saved. */
  counterparty_guid: z.string().nullable(),
});
export type WalkthroughOnboarding = z.infer<typeof WalkthroughOnboarding>;

/**
 * Step 7's optional retry rehearsal (issue 27 item 5, sandbox environments): one notification
 * delivered by the sandbox's delivery engine with a lost acknowledgement, so the same
 * transaction_id arrives again, and whether the bank answered the repeat 200.
 */
export const RetryRehearsal = z.object({
  at: z.string(),
  ok: z.boolean(),
  /** One line: what was proven, or what failed. */
  detail: z.string(),
  transaction_id: z.string(),
  delivery_id: z.string(),
  /** The delivery's state when judged. */
  delivery_state: z.enum(['delivering', 'delivered', 'escalated']),
  /** The repeat's answer (the second attempt of the ladder), null when none arrived. */
  repeat_status: z.number().int().nullable(),
  /** The bank's stored events of this transaction_id (first accepted, then repeat), oldest first. */
  events: z.array(
    z.object({
      id: z.string(),
      at: z.string(),
      status: z.number().int().nullable(),
      outcome: z.enum(['accepted', 'repeat', 'rejected']).nullable(),
    }),
  ),
});
export type RetryRehearsal = z.infer<typeof RetryRehearsal>;

export const WalkthroughState = z.object({
  /** The environment walked through: these fields as Environment defines them. */
  environment: Environment.pick({
    id: true,
    name: true,
    kind: true,
    base_url: true,
    counterparty_guid: true,
    active_kid: true,
  }),
  /** Events before this instant are ignored (null: never reset). */
  reset_at: z.string().nullable(),
  /**
   * The bank endpoints' URL the service calls: a real environment's public URL (the tunnel's,
   * --public-url, the environment's or the Bank page's), else the listener's own.
   */
  bank_url: z.string().nullable(),
  /** Real environments: what to register and whether the service can reach it (null for the sandbox). */
  reach: WalkthroughReach.nullable().optional(),
  /** Real environments: the public URL first, then what to send the service team (null for the sandbox). */
  onboarding: WalkthroughOnboarding.nullable().optional(),
  /** Sandbox: step 7's latest retry rehearsal since the reset, null when none. */
  rehearsal: RetryRehearsal.nullable().optional(),
  /** The customer the walkthrough signs in (obj) and who acts (sub). */
  obj: z.string(),
  sub: z.string(),
  composed: ComposedToken.nullable(),
  /** The latest session_token (step 4), decoded and checked against the service JWKS. */
  session: z
    .object({ exchange_id: z.string(), token: z.string(), report: InspectReport.nullable() })
    .nullable(),
  /**
   * Step 3's JWT as the authenticate request it goes in (spec 4.1 #2: POST, CX-Authorization, no
   * body), for "Copy as curl"; null until composed and while the environment has no base_url or
   * counterparty_guid.
   */
  authenticate_request: z
    .object({
      method: z.literal('POST'),
      url: z.string(),
      headers: z.record(z.string(), z.string()),
      body: z.null(),
    })
    .nullable()
    .optional(),
  steps: z.array(WalkthroughStep),
  done: z.number().int(),
  total: z.number().int(),
  derived_at: z.string(),
});
export type WalkthroughState = z.infer<typeof WalkthroughState>;

export const WalkthroughTarget = z.object({
  /** An environment id; default the active environment. */
  env_id: z.string().min(1).max(100).optional(),
});

export const RunStepInput = WalkthroughTarget.extend({
  step: StepId,
  /** Step 2 on a real environment: the counterparty_guid the service's onboarding answered. */
  counterparty_guid: Guid.optional(),
  /**
   * Step 5 on a real environment: the public URL the service calls (your own front's), saved as
   * the environment's public_url; a tunnel or --public-url still wins (tunnel.status says which).
   */
  bank_url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2048)
    .optional(),
  /**
   * Step 7 on the sandbox: instead of the three notifications, rehearse the service's retry (one
   * pay-in with a lost acknowledgement, so the same transaction_id arrives again).
   */
  rehearse_retry: z.boolean().optional(),
});

export const RunStepResult = z.object({
  step: StepId,
  ok: z.boolean(),
  /** What the action did, or why it failed. */
  message: z.string(),
  state: WalkthroughState,
});

export const ExportPackInput = WalkthroughTarget.extend({
  /**
   * Keep tokens whole (signatures included). Private keys and customers' secret keys are never
   * in the pack, whatever this says.
   */
  full_tokens: z.boolean().optional(),
});

export const EvidencePack = z.object({
  text: z.string(),
  filename: z.string(),
  mime: z.string(),
});

/** `walkthrough.changed`: a reset or a recorded attempt changed an environment's walkthrough. */
export const WalkthroughChanged = z.object({ environment_id: z.string(), at: z.string() });
