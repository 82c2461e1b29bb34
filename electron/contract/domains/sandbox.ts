import { z } from 'zod';
import {
  Counterparty,
  DeleteCounterpartyInput,
  NotifyInput,
  NotifyResult,
  OnboardInput,
  SandboxSettings,
  SandboxChange,
  SandboxStatus,
  SignInInput,
  SignInResult,
  Trace,
  TracesInput,
  UpdateCounterpartyInput,
} from '../schemas/sandbox';
import { DeliveriesInput, Delivery } from '../schemas/delivery';
import { Guid } from '../schemas/ids';
import { method, NoInput } from './method';

/** `sandbox.*` methods. */
export const sandboxMethods = {
  'sandbox.status': method({
    summary:
      'The sandbox: its URL, its signing keys, the counterparties and their registered JWKs, its settings.',
    input: NoInput,
    output: SandboxStatus,
  }),
  'sandbox.traces': method({
    summary: 'Recorded sign-in and notification traces, newest first.',
    input: TracesInput.optional(),
    output: z.array(Trace),
  }),
  'sandbox.onboard': method({
    summary:
      "Onboard a counterparty with its initial public JWK and bank URLs (the service's onboarding stand-in).",
    input: OnboardInput,
    output: z.object({ counterparty_guid: z.string(), jwk_guid: z.string() }),
  }),
  'sandbox.updateCounterparty': method({
    summary: "Change a counterparty's bank URLs (null clears one).",
    input: UpdateCounterpartyInput,
    output: Counterparty,
  }),
  'sandbox.deleteCounterparty': method({
    summary: 'Remove a counterparty and its registered JWKs from the sandbox (its traces stay).',
    input: DeleteCounterpartyInput,
    output: z.object({ deleted: z.string() }),
  }),
  'sandbox.signIn': method({
    summary:
      "Run the registration flow (spec 4.4) with a bank JWT: validate it, call the bank's /user_auth, judge the answer.",
    input: SignInInput,
    output: SignInResult,
  }),
  'sandbox.notify': method({
    summary: 'Send a pay-in, pay-out or transfer notification to the bank (spec 4.3, 6).',
    input: NotifyInput,
    output: NotifyResult,
  }),
  'sandbox.delivery': method({
    summary: 'One notification delivery: its state, the next attempt and every attempt so far (issue 27).',
    input: z.object({ delivery_id: Guid }),
    output: Delivery,
  }),
  'sandbox.deliveries': method({
    summary:
      'The newest notification deliveries (at most 500), newest first, by counterparty, state or transaction_id.',
    input: DeliveriesInput.optional(),
    output: z.array(Delivery),
  }),
  'sandbox.rotateKey': method({
    summary:
      "Rotate the sandbox's signing key: a new kid signs, the old one stays published for the grace period.",
    input: NoInput,
    output: SandboxStatus,
  }),
  'sandbox.updateSettings': method({
    summary:
      'Change sandbox settings (max bank JWT lifetime, key grace period, token TTL, notification path prefix).',
    input: SandboxSettings.partial(),
    output: SandboxSettings,
  }),
} as const;

/** `sandbox.*` events. */
export const sandboxEvents = {
  /** Counterparties, registered JWKs, sandbox keys or settings changed: what, and the sizes. */
  'sandbox.changed': SandboxChange,
  /** A sign-in or notification trace was recorded. */
  'sandbox.traced': Trace,
  /** A notification delivery changed: an attempt recorded, delivered or escalated (issue 27). */
  'sandbox.attempted': Delivery,
  /**
   * A delivery ran out of its ladder and went to manual processing (issue 27 item 3: an
   * escalation is an event of its own, and the header shows it). Sent once per delivery, with
   * every attempt it made.
   */
  'sandbox.escalated': Delivery,
} as const;
