/**
 * The attach process's one reconnect backoff (issue 30 item 2, item 3): the hub's event stream
 * and the relay connection both wait 0.5 s, then twice as long each time, up to 15 s, and start
 * again from 0.5 s once connected.
 */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 15_000;

/** One connection's backoff. */
export class Backoff {
  private ms = RETRY_MIN_MS;

  /** The wait before the next attempt (each call doubles the one after, up to the cap). */
  next(): number {
    const wait = this.ms;
    this.ms = Math.min(RETRY_MAX_MS, this.ms * 2);
    return wait;
  }

  /** Connected: the next loss waits the least again. */
  reset(): void {
    this.ms = RETRY_MIN_MS;
  }
}
