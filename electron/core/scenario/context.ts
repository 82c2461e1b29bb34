/**
 * What every step of a run sees: the runner's keys, where the bank is, how notifications are
 * delivered, and the values earlier steps produced. A plain object the step modules read and
 * extend (CONTRIBUTING.md: state is a plain object passed to small functions).
 */
import type { RunnerKey } from '../conformance';
import type { NotificationDelivery } from './delivery';
import type { ScenarioKeys } from './keys';
import type { RefScope } from './refs';

/** Where the steps go: the bank's callbacks and its notification host. */
export interface ScenarioTarget {
  /** {bank_auth_url}: `${bankAuthUrl}/user_auth` etc.; null when no step needs it. */
  bankAuthUrl: string | null;
  /** The host the service posts notifications to; null when no step needs it. */
  notifyUrl: string | null;
  /** Replace the file's `obj`/`sub` variables (`--obj`, `--sub`). */
  obj?: string;
  sub?: string;
}

export interface RunContext {
  keys: ScenarioKeys;
  target: ScenarioTarget;
  /** The delivery engine notification steps go through (its `--time-scale` set when opened). */
  delivery: NotificationDelivery;
  /** A callback with no complete answer after this long is given up (well past the 1 s budget). */
  giveUpMs: number;
  /** The key a `rotated` step published in this run (one per run, as the suite's rotation case). */
  rotated: RunnerKey | null;
}

/** What a step decided, before the run adds its id, title and time. */
export interface StepOutcome {
  status: 'passed' | 'failed' | 'skipped';
  detail: string;
  failed_check: string | null;
  /** What later steps may refer to (`${name.field}`): what the step sent or was answered, pass or fail. */
  outputs?: Record<string, string>;
}

export type { RefScope };
