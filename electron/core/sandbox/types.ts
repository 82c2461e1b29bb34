import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  Counterparty,
  NotifyInput,
  NotifyResult,
  OnboardInput,
  SandboxSettings,
  SandboxStatus,
  SignInResult,
  Trace,
} from '../../contract/schemas/sandbox';
import type { DeliveriesInput, Delivery } from '../../contract/schemas/delivery';
import type { EventHub } from '../event-hub';
import type { RefusedRequest } from '../http';
import type { SecretSealer } from '../vault';

export interface SandboxOptions {
  /** State lives in the profile database `<dataDir>/console.db`. */
  dataDir: string;
  /** Emits `sandbox.changed` and `sandbox.traced`. */
  events: EventHub;
  /** From the vault when one is unlocked; absent → the signing key lives in memory only. */
  sealer?: SecretSealer;
  /** The clock in milliseconds; tests pin it. */
  now?: () => number;
  /**
   * A request refused for its Origin header (403, http/origin.ts): the host records it as a
   * compact refused event (bank/intake.ts originRefusedEvent), so it is kept without filling
   * anything else.
   */
  onRefused?: (refused: RefusedRequest) => void;
  /** `--time-scale F` (0 < F ≤ 1, default 1): the delivery ladder's waits and timeouts × F. */
  timeScale?: number;
}

export interface SandboxListener {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The service simulator: the spec's endpoints, the /sandbox/v1 controls and their state. */
export interface Sandbox {
  status(): Promise<Omit<SandboxStatus, 'url'>>;
  traces(query?: { counterparty_guid?: string; limit?: number }): Promise<Trace[]>;
  onboard(input: OnboardInput): Promise<{ counterparty_guid: string; jwk_guid: string }>;
  updateCounterparty(input: {
    counterparty_guid: string;
    bank_auth_url?: string | null;
    bank_sender_url?: string | null;
    bank_receiver_url?: string | null;
  }): Promise<Counterparty>;
  /** Removes a counterparty and its registered JWKs; NOT_FOUND when it is not known. */
  deleteCounterparty(input: { counterparty_guid: string }): Promise<{ deleted: string }>;
  signIn(input: { counterparty_guid: string; token: string }): Promise<SignInResult>;
  notify(input: NotifyInput): Promise<NotifyResult>;
  /** One notification delivery with its attempts (issue 27); NOT_FOUND when unknown. */
  delivery(input: { delivery_id: string }): Promise<Delivery>;
  /** The newest deliveries (at most 500), newest first. */
  deliveries(input?: DeliveriesInput): Promise<Delivery[]>;
  rotateKey(): Promise<void>;
  updateSettings(partial: Partial<SandboxSettings>): Promise<SandboxSettings>;
  /** Signs a service JWT (X-Session-ID style: flow, obj, sub, iat, exp) with the active key. */
  signServiceToken(claims: { obj: string; sub: string; iat?: number; exp?: number }): Promise<string>;
  /** The HTTP handler for `/api/v1/...` and `/sandbox/v1/...`. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Starts a loopback listener serving `handle`. */
  listen(options: { host: string; port: number }): Promise<SandboxListener>;
  /** Stops listeners (finishing in-flight requests), flushes state and releases the database. */
  close(): Promise<void>;
}
