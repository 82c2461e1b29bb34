/**
 * The live event stream of browser mode: every core event, as Server-Sent Events, to every
 * connected page (`GET /api/events`; each message `event: <name>` + `data: <JSON payload>`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventName } from '../contract';

export interface EventFeed {
  onAny(listener: (event: EventName, payload: unknown) => void): () => void;
}

/** A client that has this much unsent data is not reading: it is dropped, not buffered for. */
const MAX_BACKLOG_BYTES = 4 * 1024 * 1024;

export class EventStream {
  private readonly clients = new Set<ServerResponse>();
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(source: EventFeed, heartbeatMs: number) {
    this.unsubscribe = source.onAny((event, payload) => this.broadcast(event, payload));
    // A comment line now and then keeps proxies and idle timeouts from closing a quiet stream.
    this.heartbeat = setInterval(() => this.writeAll(': heartbeat\n\n'), heartbeatMs);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Turns a GET into a stream; the client is dropped as soon as its connection closes. */
  attach(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 2000\n: connected\n\n');
    this.clients.add(res);
    const drop = () => this.clients.delete(res);
    res.on('close', drop);
    req.on('close', drop);
  }

  /** Ends every stream (the server is stopping) and stops listening to the core. */
  close(): void {
    clearInterval(this.heartbeat);
    this.unsubscribe();
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  private broadcast(event: EventName, payload: unknown): void {
    // JSON.stringify never emits a raw newline, so one `data:` line carries the whole payload.
    this.writeAll(`event: ${event}\ndata: ${JSON.stringify(payload ?? null)}\n\n`);
  }

  private writeAll(text: string): void {
    for (const res of this.clients) {
      if (res.writableLength > MAX_BACKLOG_BYTES) {
        this.clients.delete(res);
        res.destroy();
        continue;
      }
      res.write(text);
    }
  }
}
