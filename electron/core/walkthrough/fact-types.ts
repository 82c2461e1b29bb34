/**
 * The facts the walkthrough's steps are derived from (derive.ts), as gathered from the stores
 * that record real events (facts.ts): one plain object, so each step is a pure function of it.
 */
import type { KeyInfo } from '../../contract/schemas/keys';
import type { Counterparty, Trace } from '../../contract/schemas/sandbox';
import type { Environment, Exchange, Rotation } from '../../contract/schemas/service';
import type { InspectReport } from '../../contract/schemas/inspector';
import type {
  ComposedToken,
  RetryRehearsal,
  StepId,
  WalkthroughReach,
} from '../../contract/schemas/walkthrough';

export const NOTIFY_ROUTES = ['pay-in', 'pay-out', 'transfer'] as const;
export type NotifyRoute = (typeof NOTIFY_ROUTES)[number];

/** A GET /user_auth the bank endpoints recorded. */
export interface CallbackFact {
  id: string;
  at: string;
  status: number | null;
  failed_check: string | null;
  obj: string | null;
  sub: string | null;
  /** The failed check's recorded words (the 401's detail, the answer judge's), or a forward verdict that failed. */
  detail: string | null;
  /** Forward mode: did the engineer's backend pass every verdict? null when not forwarded. */
  forward_ok: boolean | null;
  duration_ms: number | null;
}

/** A notification the bank endpoints recorded. */
export interface NotificationFact {
  id: string;
  at: string;
  route: NotifyRoute;
  status: number | null;
  outcome: 'accepted' | 'repeat' | 'rejected' | null;
  transaction_id: string | null;
}

/** The last run of a step's action that failed before any event could say so (or succeeded). */
export interface Attempt {
  at: string;
  ok: boolean;
  reason: string | null;
  fix: string | null;
}

export interface WalkthroughFacts {
  env: Environment;
  resetAt: string | null;
  keys: KeyInfo[];
  keysError: string | null;
  /** Sandbox environment: the counterparty of env.counterparty_guid as the sandbox knows it. */
  sandbox: { counterparty: Counterparty | null; error: string | null } | null;
  /** The URL the service calls the bank at (a real environment's public URL, else the listener). */
  bankUrl: string | null;
  /** This environment's exchanges with the service, newest first. */
  exchanges: Exchange[];
  composed: ComposedToken | null;
  session: { exchange_id: string; report: InspectReport | null } | null;
  /** GET /user_auth callbacks for the walkthrough's obj, newest first. */
  callbacks: CallbackFact[];
  /** Sandbox sign-in and notify traces for the counterparty, newest first. */
  traces: Trace[];
  /** Notifications, newest first. */
  notifications: NotificationFact[];
  rotation: Rotation | null;
  attempts: Partial<Record<StepId, Attempt>>;
  /** A real environment: the public URL, what to register, the probe from outside, forward mode. */
  reach: WalkthroughReach | null;
  obj: string;
  sub: string;
  /** Where notifications are posted under the bank URL (spec 4.3's /api/svc/notify by default). */
  notifyPrefix?: string;
  /**
   * Other traffic since the reset that is not the walkthrough's (the Sandbox page's sign-ins, a
   * POST from outside): shown beside the steps, never deciding them (issue 13 item 4).
   */
  outside?: { traces: number; callbacks: number; notifications: number };
  /** Sandbox: step 7's latest retry rehearsal (issue 27 item 5), null or absent when none. */
  rehearsal?: RetryRehearsal | null;
}
