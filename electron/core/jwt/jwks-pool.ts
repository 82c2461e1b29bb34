/**
 * The service JWKS of every environment at once (issue 26 item 1; DESIGN.md "Environments": a
 * callback is judged against the service of the environment it belongs to, recognised by the
 * kid its token names, never against whichever environment the header shows). One
 * {@link JwksClient} per JWKS URL, so each URL keeps the client's rules on its own: at most one
 * fetch a second, backoff while it fails, stale keys served and flagged, a caller never waiting
 * past its deadline.
 *
 * A lookup answers from the first source whose cached set holds the kid (no network); else every
 * source is asked at once and the first to bring the kid wins; when none has it, the answer is
 * the active source's set with a note naming every JWKS searched, so the `kid` check's words
 * stay the engine's.
 *
 * Threat model: as the client's (jwks-client.ts). A flood of unknown kids costs each JWKS host at
 * most one request a second, however many environments there are; a source that fails or is
 * slow costs a callback no more than its deadline, and never hides a kid another source has.
 */
import { JwksClient } from './jwks-client';
import { type JwksClientOptions, type JwksLookup, type JwksState, URL_TTL_MS } from './jwks-types';

/** One environment's service JWKS. */
export interface JwksSource {
  /** The environment's id ("sandbox" for the built-in one); null for an override no environment has. */
  environment: string | null;
  /** What pages say: the environment's name, or what set the override. */
  name: string;
  url: string;
  /** The environment the header shows (whose state the Bank page reports). */
  active: boolean;
}

/** A lookup, and the source whose set it is (null when there is none). */
export interface PoolLookup extends JwksLookup {
  source: JwksSource | null;
}

export interface JwksPoolOptions extends Omit<JwksClientOptions, 'url'> {
  /** The sources in force, in a fixed order (not the header's: it must change no verdict). */
  sources: () => Promise<JwksSource[]>;
}

const EMPTY_STATE: JwksState = Object.freeze({
  url: null,
  kids: [],
  fetched_at: null,
  stale: false,
  error: null,
  rejected: [],
  duplicates: [],
}) as JwksState;

const hasKid = (lookup: JwksLookup, kid: string | undefined): boolean =>
  kid !== undefined && kid !== '' && lookup.set !== null && lookup.set.lookup(kid).found;

/**
 * Every environment's service JWKS, looked up by kid.
 *
 * @example
 * const pool = new JwksPool({ sources: async () => [{ environment: 'sandbox', name: 'Sandbox', url, active: true }], fetch, now: Date.now, onChange });
 * const { set, source } = await pool.keySetFor(kid, Date.now() + 750);
 */
export class JwksPool {
  private readonly clients = new Map<string, JwksClient>();
  private sources: JwksSource[] = [];
  private readAt = -Infinity;
  private reading: Promise<JwksSource[]> | null = null;
  private stopped = false;

  constructor(private readonly options: JwksPoolOptions) {}

  /** The active source's state (the Bank page's JWKS), else the first source's; frozen. */
  state(): JwksState {
    const primary = this.primary();
    return primary ? this.clientFor(primary.url).state() : EMPTY_STATE;
  }

  /** Every source with its state, in the sources' order. */
  states(): Array<{ source: JwksSource; state: JwksState }> {
    return this.sources.map((source) => ({ source, state: this.clientFor(source.url).state() }));
  }

  /**
   * The key set that holds `kid`, from whichever environment's JWKS publishes it, by
   * `deadlineMs` (absolute, on the `now()` clock). Never rejects.
   */
  async keySetFor(kid: string | undefined, deadlineMs: number): Promise<PoolLookup> {
    const sources = await this.currentSources();
    if (sources.length === 0) {
      return { set: null, state: EMPTY_STATE, detail: 'no service JWKS URL is configured', source: null };
    }
    const primary = this.primary() ?? sources[0]!;
    if (sources.length === 1 || kid === undefined || kid === '') {
      return { ...(await this.clientFor(primary.url).keySetFor(kid, deadlineMs)), source: primary };
    }
    // A kid a cached set already holds: no network, no waiting on a slow neighbour.
    const cached = sources.find((s) => this.clientFor(s.url).state().kids.includes(kid));
    if (cached) {
      const source = this.named(cached);
      return { ...(await this.clientFor(source.url).keySetFor(kid, deadlineMs)), source };
    }
    return this.race(sources, primary, kid, deadlineMs);
  }

  /** Every source asked at once: the first that brings `kid`, else the primary's answer with a note. */
  private race(
    sources: JwksSource[],
    primary: JwksSource,
    kid: string,
    deadlineMs: number,
  ): Promise<PoolLookup> {
    return new Promise((resolve) => {
      const answers = new Map<JwksSource, JwksLookup>();
      let settled = false;
      for (const source of sources) {
        void this.clientFor(source.url)
          .keySetFor(kid, deadlineMs)
          .then((lookup) => {
            if (settled) return;
            answers.set(source, lookup);
            if (hasKid(lookup, kid)) {
              settled = true;
              resolve({ ...lookup, source: this.named(source) });
            } else if (answers.size === sources.length) {
              settled = true;
              resolve(this.nowhere(primary, answers));
            }
          });
      }
    });
  }

  /** The kid is in no source: the primary's set (its words for the `kid` check), and a note naming every JWKS searched. */
  private nowhere(primary: JwksSource, answers: Map<JwksSource, JwksLookup>): PoolLookup {
    const own = answers.get(primary)!;
    const searched = [...answers.entries()]
      .map(([s, l]) => `${s.name} (${s.url}${l.detail ? `: ${l.detail}` : ''})`)
      .join('; ');
    const detail = `no environment's service publishes it; searched ${searched}`;
    return { ...own, detail, source: null };
  }

  /** A fetch of every source now, or as soon as each one's limit allows; resolves with the primary's state. */
  async reload(): Promise<JwksState> {
    this.readAt = -Infinity;
    const sources = await this.currentSources();
    await Promise.all(sources.map((s) => this.clientFor(s.url).reload()));
    return this.state();
  }

  /** The sources changed (an environment or the override): read them now. Resolves with the primary's URL. */
  async rereadUrl(): Promise<string | null> {
    if (this.reading) await this.reading;
    this.readAt = -Infinity;
    await this.currentSources();
    return this.primary()?.url ?? null;
  }

  /** Stops every client. */
  stop(): void {
    this.stopped = true;
    for (const c of this.clients.values()) c.stop();
  }

  /**
   * The source to name for a key found at `source.url`: when environments share one JWKS URL
   * (the same service under two names), the header's one among them, else the first; the
   * verdict is the same whichever is named.
   */
  private named(source: JwksSource): JwksSource {
    return this.sources.find((s) => s.url === source.url && s.active) ?? source;
  }

  private primary(): JwksSource | null {
    return this.sources.find((s) => s.active) ?? this.sources[0] ?? null;
  }

  private clientFor(url: string): JwksClient {
    let client = this.clients.get(url);
    if (!client) {
      client = new JwksClient({ ...this.options, url: () => url });
      if (this.stopped) client.stop();
      this.clients.set(url, client);
    }
    return client;
  }

  /** The sources, read at most once per URL_TTL_MS; a URL no source names any more is dropped. */
  private async currentSources(): Promise<JwksSource[]> {
    if (this.options.now() - this.readAt < URL_TTL_MS) return this.sources;
    this.reading ??= this.options
      .sources()
      .catch(() => this.sources)
      .then((sources) => {
        this.reading = null;
        this.readAt = this.options.now();
        this.take(sources);
        return sources;
      });
    return this.reading;
  }

  private take(sources: JwksSource[]): void {
    const before = JSON.stringify(this.sources);
    this.sources = sources;
    const urls = new Set(sources.map((s) => s.url));
    for (const [url, client] of this.clients) {
      if (!urls.has(url)) {
        client.stop();
        this.clients.delete(url);
      }
    }
    if (JSON.stringify(sources) !== before) {
      try {
        this.options.onChange();
      } catch {
        // a listener's failure never breaks a callback
      }
    }
  }
}
