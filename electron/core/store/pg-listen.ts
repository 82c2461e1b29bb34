/**
 * One LISTEN connection to PostgreSQL with its reconnection (issue 30 item 4 and its cross-hub
 * routes): the events channel (pg-live.ts) and the routes' channels (core/team route-share-pg.ts)
 * both need a connection that hears NOTIFYs and comes back after a loss, waiting longer after
 * each failed attempt. A NOTIFY sent while the connection was down is not heard again: each user
 * catches up in `connected` (a live page by id, the routes by reading their table).
 */
import pg from 'pg';

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 10_000;

/** What a {@link PgListener} listens on and tells. */
export interface PgListenerOptions {
  url: string;
  /** Channel names (fixed identifiers of this code, never text from outside). */
  channels: readonly string[];
  notified: (channel: string, payload: string) => void;
  /** After each (re)connection, LISTEN done; its rejection counts as a failed attempt. */
  connected?: (client: pg.Client) => Promise<void>;
  /** Names the connection in its log lines (`event store`, `routes`). */
  what: string;
  log: ((line: string) => void) | undefined;
}

/** The listening connection, re-made with backoff while it is lost. */
export class PgListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: PgListenerOptions) {}

  /** Connects and listens; rejects when the first connection fails. */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (msg) => {
      if (msg.payload && this.options.channels.includes(msg.channel))
        this.options.notified(msg.channel, msg.payload);
    });
    try {
      await client.connect();
      for (const channel of this.options.channels) await client.query(`LISTEN ${channel}`);
      this.client = client;
      await this.options.connected?.(client);
    } catch (err) {
      if (this.client === client) this.client = null;
      await client.end().catch(() => undefined);
      throw err;
    }
    this.retryMs = RETRY_MIN_MS;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.stopped) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.reconnect();
  }

  /** Tries again after the current backoff, doubling it while attempts fail. */
  private reconnect(): void {
    if (this.stopped || this.timer) return;
    this.options.log?.(
      `${this.options.what}: the PostgreSQL listening connection was lost; reconnecting in ${this.retryMs} ms`,
    );
    this.timer = setTimeout(() => {
      this.timer = null;
      this.start().catch(() => {
        this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
        this.reconnect();
      });
    }, this.retryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }
}
