/**
 * The service JWKS client's state, options and bounds (jwks-client.ts): what a caller reads and
 * gives, the policy's figures (one fetch a second, backoff to 30 s, a 10 s fetch timeout), and
 * how a fetched set is installed and its state frozen for the hot path.
 */
import type { JwksStatus, RejectedJwk } from '../../contract/schemas/bank';
import type { KeySet } from './key-source';

export type { RejectedJwk };

/**
 * The client's state as the Bank and Callbacks pages show it and callback events record it: the
 * contract's JwksStatus (kids each once, stale = the last good set served while the host fails,
 * error, rejected keys, duplicate kids), every field present, plus the URL.
 */
export type JwksState = Required<JwksStatus> & { url: string | null };

/** What {@link JwksClient.keySetFor} answers. */
export interface JwksLookup {
  /** The set for the current URL (possibly stale), or null when there is none. */
  set: KeySet | null;
  state: JwksState;
  /** Why the set may not do (no URL, the host failed, the host was too slow), or null. */
  detail: string | null;
}

export interface JwksClientOptions {
  /** The JWKS URL; null when none is configured. Looked up at most once a second. */
  url: () => string | null | Promise<string | null>;
  fetch: typeof fetch;
  /** The clock deadlines are given on (ms). */
  now: () => number;
  /** Called when the URL, kids, staleness, error, rejected keys or duplicates change. */
  onChange: () => void;
  /** At most one fetch per this interval; default 1000 ms. */
  minIntervalMs?: number;
  /** A set older than this is refreshed in the background; default 5 min. */
  maxAgeMs?: number;
  /** One fetch gives up after this long; default {@link JWKS_CLIENT_FETCH_TIMEOUT_MS}. */
  fetchTimeoutMs?: number;
  /**
   * Why a caller stops waiting at its deadline, for the detail of one that stopped waiting (the
   * bank's: a callback is answered by 900 ms after it arrives); default: the callback's budget.
   */
  waitNote?: string;
}

export const JWKS_MIN_INTERVAL_MS = 1000;
export const JWKS_MAX_AGE_MS = 5 * 60_000;
/** Longest backoff between fetches while the host fails. */
export const JWKS_MAX_BACKOFF_MS = 30_000;
/**
 * Longer than a callback's budget on purpose: callers stop waiting at their deadline, while a
 * slow host still gets to deliver its keys for the next callers; one fetch at a time, so a slow
 * host still sees at most one request in flight.
 */
export const JWKS_CLIENT_FETCH_TIMEOUT_MS = 10_000;
/** The URL setting is read at most this often. */
export const URL_TTL_MS = 1000;

export interface Waiter {
  kid: string | undefined;
  /** Index of the first fetch that started after this caller asked: its end settles the caller. */
  needs: number;
  /** The deadline's wait, for the detail ("within the callback's 1 s budget"). */
  budgetMs: number | null;
  settle: (lookup: JwksLookup) => void;
  timer: ReturnType<typeof setTimeout> | null;
}

export interface Flight {
  index: number;
  url: string;
  controller: AbortController;
}

export interface Installed {
  set: KeySet;
  kids: ReadonlySet<string>;
  rejected: RejectedJwk[];
  duplicates: string[];
}

/** A wait with no deadline (reload). */
export const noWait = -1;
/** At most this many kids wait for the next fetch (a flood of made-up kids is bounded). */
export const MAX_PENDING_KIDS = 1024;

/** Freezes a state and its arrays: handed out as it is, shared until the next change. */
export function freezeState(state: JwksState): JwksState {
  Object.freeze(state.kids);
  Object.freeze(state.duplicates);
  for (const r of state.rejected) Object.freeze(r);
  Object.freeze(state.rejected);
  return Object.freeze(state);
}

/** A fetched set as the client keeps it: its kids for the hot path's lookup, its rejects and duplicates. */
export function install(set: KeySet): Installed {
  return {
    set,
    kids: new Set(set.kids),
    rejected: set.rejected.map((r) => ({ kid: r.kid, reason: r.reason })),
    duplicates: [...set.duplicates],
  };
}

/** "1 s", "2.5 s", "30 s" or "200 ms": a deadline taken a few ms after it was set still reads "1 s". */
export function formatBudget(ms: number): string {
  return ms >= 950 ? `${Math.round(ms / 100) / 10} s` : `${Math.max(1, Math.round(ms))} ms`;
}
