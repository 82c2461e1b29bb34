/**
 * Live events across hubs (issue 30 item 4: "an event stored by one is live on the other's pages
 * within a second"): one connection LISTENs on the events channel; what another hub committed
 * is emitted here as this hub's own `events.appended`. A lost connection is re-made with backoff
 * (a page then catches up by id, as every live list does after a gap).
 */
import type { EventDetail, EventSummary } from '../../contract/schemas/events';
import { type LiveBatch, payloadPrefix } from './pg-commit';
import { PgListener } from './pg-listen';
import { PG_EVENTS_CHANNEL } from './pg-schema';
import { summarize } from './records';

/** The listening side of the events channel (its reconnection: pg-listen.ts). */
export class PgLive {
  private readonly listener: PgListener;
  private readonly ownPrefix: string;

  constructor(
    url: string,
    private readonly hubId: string,
    /** Reads a whole event (for one announced by id alone: too large for a NOTIFY). */
    private readonly read: (id: string) => Promise<EventDetail>,
    private readonly emit: (s: EventSummary) => void,
    log: ((line: string) => void) | undefined,
  ) {
    this.ownPrefix = payloadPrefix(hubId);
    this.listener = new PgListener({
      url,
      channels: [PG_EVENTS_CHANNEL],
      notified: (_channel, payload) => this.received(payload),
      what: 'event store',
      log,
    });
  }

  /** Connects and listens; rejects when the first connection fails. */
  start(): Promise<void> {
    return this.listener.start();
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

  stop(): Promise<void> {
    return this.listener.stop();
  }
}
