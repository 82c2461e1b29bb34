/**
 * The service's JWKS as a verifier sees it (spec 4.1 endpoint 3, 5.5; DESIGN.md "Bank
 * endpoints", the service JWKS client): one cached key set per JWKS URL, fetched with
 * {@link fetchJwks} (same-origin redirects only, 1 MiB, a timeout), refreshed when a token names
 * a kid the set lacks or when the set is old, and served stale, flagged, while the host fails.
 *
 * Threat model: tokens arrive from anyone who can reach the bank endpoints, and each may name
 * any kid; the JWKS host may be slow, broken or hostile. So:
 * - the host gets AT MOST ONE FETCH PER `minIntervalMs` (1 s) whatever arrives, the very first
 *   fetch and failures included, and backs off exponentially (1 s, 2 s, 4 s … 30 s) while it
 *   fails: a flood of made-up kids or a failing host never turns the console into a JWKS hammer;
 * - kids are never blacklisted: a fetch covers every kid pending when it starts, so a kid the
 *   service newly publishes is seen by the first fetch that starts after the first token carrying
 *   it, at most `minIntervalMs` later, however many random kids came before it;
 * - one fetch at a time, shared by every waiter;
 * - a caller never waits past its deadline (spec 4.2: a callback answers within 1 s; the bank's
 *   callbacks stop waiting 750 ms after they arrive, so they are answered by 900 ms): it gets
 *   the set as it is then and a detail naming the slow host, and the fetch goes on to serve the
 *   next callers; when no fetch may start before the deadline (the one-per-interval limit, the
 *   backoff), the caller is answered at once instead of waiting for nothing;
 * - a change of URL forgets the old keys: they are not the service's any more.
 *
 * Hot path: a kid the cached set has resolves at once, with no network and no timer.
 */
import { fetchJwks } from './fetch-jwks';
import { keySetFromJwks, type KeySet } from './key-source';
import {
  type Flight,
  formatBudget,
  freezeState,
  install,
  type Installed,
  JWKS_CLIENT_FETCH_TIMEOUT_MS,
  JWKS_MAX_AGE_MS,
  JWKS_MAX_BACKOFF_MS,
  JWKS_MIN_INTERVAL_MS,
  type JwksClientOptions,
  type JwksLookup,
  type JwksState,
  MAX_PENDING_KIDS,
  noWait,
  URL_TTL_MS,
  type Waiter,
} from './jwks-types';

export type { JwksClientOptions, JwksLookup, JwksState } from './jwks-types';

/**
 * A JWKS client that keeps the callback budget.
 *
 * @example
 * const jwks = new JwksClient({ url: () => settings.jwksUrl, fetch, now: Date.now, onChange });
 * const { set, detail } = await jwks.keySetFor(header.kid, Date.now() + 1000);
 * if (!set?.lookup(header.kid).found) fail('kid', detail ?? set?.lookup(header.kid).message);
 */
export class JwksClient {
  private readonly minInterval: number;
  private readonly maxAge: number;
  private readonly timeout: number;

  private url: string | null = null;
  private urlAt = -Infinity;
  private urlRead: Promise<string | null> | null = null;

  private installed: Installed | null = null;
  private fetchedAt: number | null = null;
  private error: string | null = null;
  private failures = 0;

  /** Fetches started so far; the in-flight one, if any, has this index. */
  private started = 0;
  private flight: Flight | null = null;
  /** A caller asked for a fetch that has not started yet. */
  private wanted = false;
  /**
   * Kids asked for since the fetch in flight started: after it lands, another fetch is due only
   * if one of them is still missing (a caller that gave up at its deadline still counts, so a
   * newly published kid is fetched within a second of its first token). Bounded: past
   * MAX_PENDING_KIDS the next fetch is simply due.
   */
  private readonly pendingKids = new Set<string>();
  /** Earliest start of the next fetch (the one-per-interval limit, and the backoff). */
  private nextAt = -Infinity;
  /** Earliest start of a forced fetch (the limit without the backoff). */
  private nextForcedAt = -Infinity;
  private forced = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly waiters = new Set<Waiter>();
  private stopped = false;
  private lastSignature = '';
  /** state(), built once per change: the hot path hands it out without allocating. */
  private snapshot: JwksState | null = null;

  constructor(private readonly options: JwksClientOptions) {
    this.minInterval = options.minIntervalMs ?? JWKS_MIN_INTERVAL_MS;
    this.maxAge = options.maxAgeMs ?? JWKS_MAX_AGE_MS;
    this.timeout = options.fetchTimeoutMs ?? JWKS_CLIENT_FETCH_TIMEOUT_MS;
    this.lastSignature = this.signature();
  }

  /** The current state; frozen, rebuilt only when something changes. */
  state(): JwksState {
    return (this.snapshot ??= freezeState(this.buildState()));
  }

  private buildState(): JwksState {
    const s = this.installed;
    return {
      url: this.url,
      kids: s ? [...s.kids] : [],
      fetched_at: this.fetchedAt === null ? null : new Date(this.fetchedAt).toISOString(),
      stale: s !== null && this.error !== null,
      error: this.error,
      rejected: s ? s.rejected : [],
      duplicates: s ? s.duplicates : [],
    };
  }

  /**
   * The key set to check a token with `kid` against, by `deadlineMs` (absolute, on the `now()`
   * clock). A kid the cached set has resolves at once. Otherwise a fetch is asked for (one per
   * interval at most, later while the host fails) and awaited until the deadline at most; the
   * fetch goes on past it and its result serves later calls. Never rejects.
   */
  keySetFor(kid: string | undefined, deadlineMs: number): Promise<JwksLookup> {
    const url = this.currentUrl();
    if (url instanceof Promise) return url.then(() => this.lookupAt(kid, deadlineMs));
    return this.lookupAt(kid, deadlineMs);
  }

  /**
   * A fetch now, or as soon as the one-per-interval limit allows (a "Refresh" button: the
   * backoff is skipped, the limit is not). Resolves with the state after that fetch.
   */
  async reload(): Promise<JwksState> {
    this.urlAt = -Infinity;
    await this.currentUrl();
    if (this.url === null || this.stopped) return this.state();
    await this.wait(undefined, noWait, true);
    return this.state();
  }

  /**
   * The URL setting changed: read it now instead of up to a second later (a new URL forgets the
   * old keys and reports the change). Resolves with the URL in force.
   */
  async rereadUrl(): Promise<string | null> {
    if (this.urlRead) await this.urlRead; // a read begun before the change must not land after it
    this.urlAt = -Infinity;
    return this.currentUrl();
  }

  /** Cancels the fetch in flight and any timer; waiting callers get the set as it is. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flight?.controller.abort();
    for (const w of [...this.waiters]) this.release(w, 'deadline');
  }

  private lookupAt(kid: string | undefined, deadlineMs: number): Promise<JwksLookup> {
    const url = this.url;
    if (url === null) {
      return Promise.resolve({
        set: null,
        state: this.state(),
        detail: 'no service JWKS URL is configured',
      });
    }
    const s = this.installed;
    if (s && this.has(s, kid)) {
      const old = this.fetchedAt !== null && this.options.now() - this.fetchedAt > this.maxAge;
      if (old && this.flight === null) this.want(undefined, false);
      return Promise.resolve({ set: s.set, state: this.state(), detail: null });
    }
    if (this.stopped) return Promise.resolve(this.outcome(kid, 'deadline', null));
    return this.wait(kid, deadlineMs, false);
  }

  private has(s: Installed, kid: string | undefined): boolean {
    // A token without kid gains nothing from a fetch: the set decides (its only key, or none).
    if (kid === undefined || kid === '') return true;
    return s.kids.has(kid) || s.set.lookup(kid).found;
  }

  private wait(kid: string | undefined, deadlineMs: number, force: boolean): Promise<JwksLookup> {
    return new Promise((resolve) => {
      const now = this.options.now();
      const w: Waiter = {
        kid,
        needs: this.started + 1,
        budgetMs: deadlineMs === noWait ? null : deadlineMs - now,
        settle: resolve,
        timer: null,
      };
      this.waiters.add(w);
      this.want(kid, force);
      if (!this.waiters.has(w) || deadlineMs === noWait) return; // settled at once (e.g. stopped)
      // No fetch in flight and none allowed to start before the deadline (the limit, the
      // backoff): waiting would only spend the caller's budget, so it gets the answer now.
      const startAt = this.flight ? now : this.forced ? this.nextForcedAt : this.nextAt;
      const left = deadlineMs - now;
      if (left <= 0 || startAt >= deadlineMs) this.release(w, 'deadline');
      else w.timer = setTimeout(() => this.release(w, 'deadline'), left);
    });
  }

  private release(w: Waiter, why: 'deadline' | 'fetched'): void {
    if (!this.waiters.delete(w)) return;
    if (w.timer) clearTimeout(w.timer);
    w.settle(this.outcome(w.kid, why, w.budgetMs));
  }

  /** The answer for a caller now: the set for the current URL and what to say about it. */
  private outcome(kid: string | undefined, why: 'deadline' | 'fetched', budgetMs: number | null): JwksLookup {
    const url = this.url;
    const s = this.installed;
    const state = this.state();
    const set = s?.set ?? null;
    if (url === null) return { set: null, state, detail: 'no service JWKS URL is configured' };
    if (s && this.has(s, kid)) return { set, state, detail: null };
    if (why === 'deadline' && this.flight !== null) {
      const note = this.options.waitNote;
      const wait = budgetMs === null ? '' : formatBudget(budgetMs);
      const budget = !wait
        ? ''
        : note
          ? ` within ${wait} (${note})`
          : ` within the callback's ${wait} budget`;
      return {
        set,
        state,
        detail: `the service JWKS at ${url} did not answer${budget}; the fetch continues and will serve the next callbacks`,
      };
    }
    if (this.error !== null) {
      const retry = this.nextAt - this.options.now();
      const next = retry > 0 ? ` (next try in ${formatBudget(retry)})` : '';
      return {
        set,
        state,
        detail: s
          ? `the service JWKS could not be refreshed: ${this.error}${next}; the keys fetched at ${state.fetched_at ?? '?'} are served, stale`
          : `the service JWKS could not be loaded: ${this.error}${next}`,
      };
    }
    if (!s) {
      return {
        set,
        state,
        detail: `the service JWKS at ${url} has not been fetched yet (at most one fetch a second): try again`,
      };
    }
    return { set, state, detail: null };
  }

  /** Reads the URL setting (at most once per URL_TTL_MS); a new URL forgets the old keys. */
  private currentUrl(): string | null | Promise<string | null> {
    const now = this.options.now();
    if (now - this.urlAt < URL_TTL_MS) return this.url;
    if (this.urlRead) return this.urlRead;
    let got: string | null | Promise<string | null>;
    try {
      got = this.options.url();
    } catch {
      got = null;
    }
    if (!(got instanceof Promise)) return this.takeUrl(got);
    this.urlRead = got
      .catch(() => null)
      .then((url) => {
        this.urlRead = null;
        return this.takeUrl(url);
      });
    return this.urlRead;
  }

  private takeUrl(url: string | null): string | null {
    this.urlAt = this.options.now();
    if (url !== this.url) {
      this.url = url;
      // The old keys are not the service's any more, and neither is the old host's failure count.
      this.installed = null;
      this.fetchedAt = null;
      this.error = null;
      this.failures = 0;
      this.nextAt = this.nextForcedAt;
      this.flight?.controller.abort();
      this.changed();
    }
    return url;
  }

  /** Asks for a fetch: now if the limits allow and none is in flight, else as soon as they do. */
  private want(kid: string | undefined, force: boolean): void {
    if (this.stopped) {
      for (const w of [...this.waiters]) this.release(w, 'deadline');
      return;
    }
    this.wanted = true;
    this.forced ||= force;
    if (kid && this.flight && this.pendingKids.size < MAX_PENDING_KIDS) this.pendingKids.add(kid);
    this.schedule();
  }

  private schedule(): void {
    if (this.flight || !this.wanted || this.stopped) return;
    const at = this.forced ? this.nextForcedAt : this.nextAt;
    const delay = at - this.options.now();
    if (delay <= 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.start();
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.schedule();
    }, delay);
    this.timer.unref?.();
  }

  private start(): void {
    const url = this.url;
    if (url === null) {
      this.wanted = false;
      for (const w of [...this.waiters]) this.release(w, 'fetched');
      return;
    }
    const flight: Flight = { index: ++this.started, url, controller: new AbortController() };
    this.flight = flight;
    this.wanted = false;
    this.pendingKids.clear();
    this.forced = false;
    const startedAt = this.options.now();
    this.nextForcedAt = startedAt + this.minInterval;
    this.nextAt = this.nextForcedAt;
    fetchJwks(url, {
      fetch: this.options.fetch,
      timeoutMs: this.timeout,
      signal: flight.controller.signal,
    })
      .then((doc) => keySetFromJwks(doc, { source: 'jwks-url', url }))
      .then(
        (set) => this.landed(flight, set, null),
        (err: unknown) => this.landed(flight, null, err instanceof Error ? err.message : String(err)),
      );
  }

  private landed(flight: Flight, set: KeySet | null, error: string | null): void {
    this.flight = null;
    // A fetch for a URL that is no longer current teaches nothing about the current one.
    if (flight.url === this.url && !this.stopped) {
      const now = this.options.now();
      if (set) {
        this.installed = install(set);
        this.fetchedAt = now;
        this.error = null;
        this.failures = 0;
      } else {
        this.error = error;
        this.failures += 1;
        const backoff = Math.min(JWKS_MAX_BACKOFF_MS, this.minInterval * 2 ** (this.failures - 1));
        this.nextAt = Math.max(this.nextForcedAt, now + backoff);
      }
    }
    this.changed();
    const got = this.installed;
    for (const w of [...this.waiters]) {
      if (w.needs <= flight.index || (got && w.kid && this.has(got, w.kid))) this.release(w, 'fetched');
    }
    // Asked for during this fetch: due again only for a caller still waiting or a kid still
    // missing (callers whose kid this fetch brought need nothing more).
    const missing = [...this.pendingKids].some((kid) => !got || !this.has(got, kid));
    const full = this.pendingKids.size >= MAX_PENDING_KIDS;
    this.wanted &&= this.waiters.size > 0 || missing || full;
    this.pendingKids.clear();
    this.schedule();
  }

  private signature(): string {
    const s = this.state();
    return JSON.stringify([s.url, s.kids, s.stale, s.error, s.rejected, s.duplicates]);
  }

  /** Called after every change of the fields state() reads. */
  private changed(): void {
    this.snapshot = null;
    const now = this.signature();
    if (now === this.lastSignature) return;
    this.lastSignature = now;
    try {
      this.options.onChange();
    } catch {
      // a listener's failure never breaks a callback
    }
  }
}
