/**
 * Live events across hubs (issue 30 item 4: "an event stored by one is live on the other's pages
 * within a second"): one connection LISTENs on the events channel; what another hub committed
 * is emitted here as this hub's own `events.appended`. A lost connection is re-made with backoff
 * (a page then catches up by id, as every live list does after a gap).
 */
import pg from 'pg';
import type { EventDetail, EventSummary } from '../../contract/schemas/events';
import { type LiveBatch, payloadPrefix } from './pg-commit';
import { PG_EVENTS_CHANNEL } from './pg-schema';
import { summarize } from './records';

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 10_000;

/** The listening side of the events channel, with its reconnection. */
export class PgLive {
  private client: pg.Client | null = null;
  private stopped = false;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | null = null;
  private readonly ownPrefix: string;

  constructor(
    private readonly url: string,
    private readonly hubId: string,
    /** Reads a whole event (for one announced by id alone: too large for a NOTIFY). */
    private readonly read: (id: string) => Promise<EventDetail>,
    private readonly emit: (s: EventSummary) => void,
    private readonly log: ((line: string) => void) | undefined,
  ) {
    this.ownPrefix = payloadPrefix(hubId);
  }

  /** Connects and listens; rejects when the first connection fails. */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (msg) => {
      if (msg.channel === PG_EVENTS_CHANNEL && msg.payload) this.received(msg.payload);
    });
    await client.connect();
    await client.query(`LISTEN ${PG_EVENTS_CHANNEL}`);
    this.client = client;
    this.retryMs = RETRY_MIN_MS;
  }

  private received(payload: string): void {
    // This hub's own commits are already live here: not even parsed.
    if (payload.startsWith(this.ownPrefix)) return;
    let batch: LiveBatch;
    try {
      batch = JSON.parse(payload) as LiveBatch;
    } catch {
      return;
    }
    if (batch.hub === this.hubId || !Array.isArray(batch.events)) return;
    for (const e of batch.events) {
      if ('kind' in e) this.emit(e);
      else
        void this.read(e.id).then(
          (d) => this.emit(summarize(d)),
          () => undefined,
        );
    }
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
    this.log?.(`event store: the PostgreSQL live channel was lost; reconnecting in ${this.retryMs} ms`);
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
