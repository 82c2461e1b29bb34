/**
 * The bank's state (issue 25: modules over a plain state object, not a closure): what its
 * modules share (the settings, the customers, the service JWKS client, the listeners, and the
 * bookkeeping of answers not yet recorded). bank.ts makes it; routes.ts, callbacks.ts,
 * notifications.ts, recording.ts, replay.ts, admin.ts and listening.ts read and change it.
 */
import type { IncomingMessage } from 'node:http';
import type { Customer } from '../../contract/schemas/bank';
import type { EventSummary } from '../../contract/schemas/events';
import type { Reply, RouteTable, RunningServer } from '../http';
import type { JwksPool } from '../jwt';
import type { CustomerDirectory } from './customers';
import type { ForwardOutcome } from './forward';
import type { SettingsStore } from './settings';
import type { BankOptions } from './types';
import type { Verdict } from './verify';

/** The three callbacks (spec 4.2). */
export type CallbackPath = '/user_auth' | '/key' | '/external_id';

/** A route of the bank's listener (routes.ts): a callback, or a notification under the prefix. */
export interface BankRoute {
  method: 'GET' | 'POST';
  path: string;
  /** `callback`: path is a {@link CallbackPath}; `notification`: name is pay-in, pay-out or transfer. */
  serve: 'callback' | 'notification';
  name: string;
}

/** A callback answered, waiting for its event to be built (after the turn's answers are written). */
export interface AnsweredCallback {
  /** When the request arrived (ms since the epoch, on the bank's clock). */
  at: number;
  path: string;
  method: string;
  remote: string | null;
  req: IncomingMessage;
  reply: Reply;
  verdict: Verdict | null;
  forward: ForwardOutcome | null;
  /** Milliseconds from arrival to the answer written. */
  duration: number;
  replay: string | undefined;
}

/** Everything the bank's modules share; one per {@link BankOptions}. */
export interface BankState {
  readonly options: BankOptions;
  readonly now: () => number;
  readonly settings: SettingsStore;
  readonly customers: CustomerDirectory;
  /** Every environment's service JWKS, or the override alone (admin.ts jwksSources). */
  readonly jwks: JwksPool;
  /** The running listeners: the first one's URL is the status's. */
  readonly servers: Set<RunningServer>;
  /** Appends not yet settled: close waits for them. */
  readonly pending: Set<Promise<unknown>>;
  /** A replay waits for its request's event by the nonce in its REPLAY_HEADER (replay.ts). */
  readonly replayWaiters: Map<string, (summary: EventSummary | Error) => void>;
  /** The callbacks this turn answered, their events built on the next setImmediate (recording.ts). */
  answered: AnsweredCallback[];
  /** Each customer's success reply per route, made once (replies.ts). */
  readonly successReplies: WeakMap<Customer, Partial<Record<CallbackPath, Reply>>>;
  /** The listener's route table for the current notification prefix (routes.ts). */
  routes: { prefix: string; table: RouteTable<BankRoute> } | null;
}
