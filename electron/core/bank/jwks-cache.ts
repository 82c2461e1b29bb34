/**
 * The service's JWKS as the bank endpoints see it (spec 4.1 endpoint 3, 5.5): fetched with a
 * timeout, cached, refreshed in the background when old, refreshed once on an unknown kid
 * (rate-limited, so a flood of tokens with made-up kids cannot turn the bank into a JWKS
 * hammer), and served stale (flagged) when the service is unreachable.
 *
 * Hot path: a request with a known kid touches no network and no disk; imported keys are cached
 * per key set, kid and alg, so a signature check is one RSA verification.
 */
import type { CryptoKey } from 'jose';
import { fetchJwks, keySetFromJwks, type AllowedAlg, type KeySet } from '../jwt';
import type { JwksState as ClientJwksState } from '../jwt/jwks-client';

/** A JWKS older than this is refreshed in the background (the request is not held). */
export const JWKS_MAX_AGE_MS = 5 * 60_000;
/** At most one refresh per this interval for unknown kids or after a failure. */
export const JWKS_REFRESH_MIN_INTERVAL_MS = 10_000;
/** The JWKS URL setting is looked up at most this often. */
const URL_TTL_MS = 1000;
const FETCH_TIMEOUT_MS = 3000;

/** JwksClient's state (jwt/jwks-client.ts, which replaces this cache) without its key reports. */
export type JwksState = Omit<ClientJwksState, 'rejected' | 'duplicates'>;

export interface JwksSnapshot {
  state: JwksState;
  set: KeySet | null;
}

export interface JwksCacheOptions {
  url: () => Promise<string | null>;
  fetch: typeof fetch;
  now: () => number;
  /** Called when kids, staleness or the error change. */
  onChange: () => void;
}

export class JwksCache {
  private set: KeySet | null = null;
  private setUrl: string | null = null;
  private fetchedAt: number | null = null;
  private error: string | null = null;
  private stale = false;
  private lastAttempt = -Infinity;
  private lastKidRefresh = -Infinity;
  private inflight: Promise<void> | null = null;
  private url: string | null = null;
  private urlAt = -Infinity;
  private urlPromise: Promise<string | null> | null = null;
  private readonly keys = new WeakMap<
    KeySet,
    Map<string, Promise<{ key: CryptoKey; label: string } | string>>
  >();

  constructor(private readonly options: JwksCacheOptions) {}

  state(): JwksState {
    return {
      url: this.url,
      kids: this.set?.kids ?? [],
      fetched_at: this.fetchedAt === null ? null : new Date(this.fetchedAt).toISOString(),
      stale: this.stale,
      error: this.error,
    };
  }

  private async currentUrl(): Promise<string | null> {
    const now = this.options.now();
    if (now - this.urlAt < URL_TTL_MS) return this.url;
    this.urlPromise ??= this.options
      .url()
      .catch(() => null)
      .then((url) => {
        this.url = url;
        this.urlAt = this.options.now();
        this.urlPromise = null;
        return url;
      });
    return this.urlPromise;
  }

  /** The key set for a request: fetched first when there is none for the current URL. */
  async get(): Promise<JwksSnapshot> {
    const url = await this.currentUrl();
    if (url === null) return { state: this.state(), set: null };
    if (this.setUrl !== url) {
      // A new URL: the old keys are not the service's any more.
      if (this.setUrl !== null) this.forget();
      await this.refresh(url, 'force');
    } else if (this.fetchedAt !== null && this.options.now() - this.fetchedAt > JWKS_MAX_AGE_MS) {
      void this.refresh(url, 'background');
    } else if (this.set === null) {
      await this.refresh(url, 'background');
    }
    return { state: this.state(), set: this.setUrl === url ? this.set : null };
  }

  /** An unknown kid: refresh once (rate-limited) and return the set as it is then. */
  async refreshForUnknownKid(): Promise<JwksSnapshot> {
    const url = await this.currentUrl();
    if (url !== null) await this.refresh(url, 'kid');
    return { state: this.state(), set: this.setUrl === url ? this.set : null };
  }

  /** Forces a fetch now (recheck, tests), ignoring the rate limit. */
  async reload(): Promise<JwksSnapshot> {
    this.urlAt = -Infinity;
    const url = await this.currentUrl();
    if (url !== null) await this.refresh(url, 'force');
    return { state: this.state(), set: this.setUrl === url ? this.set : null };
  }

  private forget(): void {
    this.set = null;
    this.setUrl = null;
    this.fetchedAt = null;
    this.stale = false;
    this.error = null;
  }

  /**
   * `force`: now (a new URL, a reload); `kid`: an unknown kid, at most once per interval
   * whatever else fetched meanwhile; `background`: an old or failed set, at most once per
   * interval after any attempt.
   */
  private refresh(url: string, why: 'force' | 'kid' | 'background'): Promise<void> {
    if (this.inflight) return this.inflight;
    const now = this.options.now();
    if (why === 'kid') {
      if (now - this.lastKidRefresh < JWKS_REFRESH_MIN_INTERVAL_MS) return Promise.resolve();
      this.lastKidRefresh = now;
    } else if (why === 'background' && now - this.lastAttempt < JWKS_REFRESH_MIN_INTERVAL_MS) {
      return Promise.resolve();
    }
    this.lastAttempt = now;
    const before = JSON.stringify([this.set?.kids, this.stale, this.error]);
    this.inflight = (async () => {
      try {
        const doc = await fetchJwks(url, { fetch: this.options.fetch, timeoutMs: FETCH_TIMEOUT_MS });
        this.set = keySetFromJwks(doc, { source: 'jwks-url', url });
        this.setUrl = url;
        this.fetchedAt = this.options.now();
        this.stale = false;
        this.error = null;
      } catch (err) {
        this.error = err instanceof Error ? err.message : String(err);
        // Served stale: the last good set stays in use, flagged.
        this.stale = this.set !== null && this.setUrl === url;
      } finally {
        this.inflight = null;
      }
      if (JSON.stringify([this.set?.kids, this.stale, this.error]) !== before) this.options.onChange();
    })();
    return this.inflight;
  }

  /** The imported key for kid and alg from `set`, cached; a string says why there is none. */
  resolveKey(
    set: KeySet,
    kid: string | undefined,
    alg: AllowedAlg,
  ): Promise<{ key: CryptoKey; label: string } | string> {
    let perSet = this.keys.get(set);
    if (!perSet) this.keys.set(set, (perSet = new Map()));
    const id = `${kid ?? ''}\u0000${alg}`;
    let hit = perSet.get(id);
    if (!hit) {
      hit = set.resolve(kid, alg).then((r) => (r.ok ? { key: r.key, label: r.label } : r.message));
      perSet.set(id, hit);
    }
    return hit;
  }
}
