import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type {
  BankStatus,
  Behaviours,
  Customer,
  CustomerView,
  ForwardSettings,
  FreshSession,
  ServiceJwksChange,
} from '../../contract/schemas/bank';
import type { EventDetail } from '../../contract/schemas/events';
import type { EventHub } from '../event-hub';
import type { EventStore } from '../store';
import type { Vault } from '../vault';
import type { ExchangeResult, TlsMaterial } from '../http';
import type { JwksSource } from '../jwt';

/** obj/sub pairs the console signed, so the bank endpoints can check a callback's sub (DESIGN.md). */
export interface SignedPairs {
  record(obj: string, sub: string, atMs?: number): Promise<void>;
  /** Subs signed for `obj` within the last `withinSeconds` (default one hour), newest first. */
  subsFor(obj: string, withinSeconds?: number): Promise<string[]>;
  /** Gives back the profile database handle it holds (a later use opens it again). */
  close?(): Promise<void>;
}

export interface BankListener {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Where and how the bank endpoints listen. */
export interface BankListenOptions {
  host: string;
  port: number;
  /** HTTPS with this PEM certificate and key (`serve --tls-cert/--tls-key`). */
  tls?: TlsMaterial;
  /** Answers a request before the bank routes and returns true, or returns false to pass it on. */
  intercept?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

/**
 * The bank's side (issue 5, DESIGN.md "Bank endpoints"): GET /user_auth, /key, /external_id
 * verifying X-Session-ID in DESIGN.md's order against the service JWKS, and POST
 * {prefix}/pay-in|pay-out|transfer storing each notification durably before its 200.
 */
export interface BankEndpoints {
  /** The whole status, the listener's URL included (null when not listening). */
  status(): Promise<BankStatus>;
  customers(): Promise<Array<z.output<typeof CustomerView>>>;
  saveCustomer(customer: Customer): Promise<z.output<typeof CustomerView>>;
  removeCustomer(obj: string): Promise<void>;
  /** Replaces the directory with a `--users` file's content (validated whole first). */
  importCustomers(customers: unknown): Promise<number>;
  /** The directory in the `--users` format, secret keys included (for a file the user saves). */
  exportCustomers(): Promise<Customer[]>;
  setBehaviours(behaviours: z.output<typeof Behaviours>): Promise<z.output<typeof Behaviours>>;
  setForward(forward: z.output<typeof ForwardSettings>): Promise<z.output<typeof ForwardSettings>>;
  /** The notification path prefix (spec 4.3 `/api/svc/notify` by default; the guide's `/api/dcm/notify`). */
  setNotifyPrefix(prefix: string): Promise<string>;
  /**
   * The bank's own service JWKS URL (null: follow `serviceJwksUrl` again); the answer says what
   * was in force before and after, so a page can put it back.
   */
  setServiceJwksUrl(url: string | null): Promise<ServiceJwksChange>;
  /** Runs a stored callback's checks again with the current JWKS. */
  recheck(eventId: string): Promise<EventDetail>;
  /** Replays a stored callback with a fresh token (same obj/sub, new iat/exp) signed by the sandbox. */
  replay(eventId: string): Promise<EventDetail>;
  /** A stored sandbox callback's claims signed again, fresh iat/exp (issue 26 item 5). */
  freshSession(eventId: string): Promise<FreshSession>;
  handle(req: IncomingMessage, res: ServerResponse): void;
  listen(options: BankListenOptions): Promise<BankListener>;
  close(): Promise<void>;
}

/**
 * A request the bank offers a team hub's routes (issue 30 item 3): a callback with the claims of
 * its proven token, or a notification (no claims: spec 2.7 carries only a transaction_id).
 */
export interface RelayRequest {
  kind: 'callback' | 'notification';
  method: 'GET' | 'POST';
  path: string;
  /** What the laptop's backend gets: X-Session-ID for a callback, Content-Type for a notification. */
  headers: Record<string, string>;
  body: string | null;
  claims: { obj: string | null; sub: string | null } | null;
  /** performance.now() by which the answer must be back, so the service has it within 1 s. */
  deadline: number;
}

/** What came of a relayed request: the laptop's answer, or none (the bank answers itself). */
export type RelayOutcome =
  { answered: true; url: string; result: Extract<ExchangeResult, { ok: true }> } | { answered: false };

/**
 * A team hub's routes as the bank sees them (core/team RelayHub implements it). `relay` answers
 * null when no route claims the request; otherwise it never rejects, and it records why itself
 * when the laptop missed (`route.down`, `route.late`).
 */
export interface CallbackRelay {
  relay(request: RelayRequest): Promise<RelayOutcome> | null;
}

export interface BankOptions {
  dataDir: string;
  events: EventHub;
  store: EventStore;
  pairs: SignedPairs;
  /**
   * An explicit service JWKS URL when the bank's own setting is null (--service-jwks-url, a
   * conformance run's JWKS): when it gives one, callbacks are judged against it alone. Null:
   * against every environment's (`environmentJwks`).
   */
  serviceJwksUrl: () => Promise<string | null>;
  /**
   * Every environment's service JWKS, in a fixed order, the active one flagged (issue 26: a
   * callback is judged against the environment whose service published its kid). Absent: none.
   */
  environmentJwks?: () => Promise<JwksSource[]>;
  /** For customers' secret keys when a vault is unlocked. */
  vault?: Pick<Vault, 'sealer'>;
  /** Signs a fresh X-Session-ID for replays (the sandbox's key). */
  signServiceToken?: (claims: { obj: string; sub: string }) => Promise<string>;
  fetch: typeof fetch;
  now?: () => number;
  /** A team hub's routes to attached laptops (serve --team); absent elsewhere. */
  relay?: CallbackRelay;
}
