/** The recorded traces: the newest {@link MAX_TRACES} are kept (and stored with the state). */
import type { Trace } from '../../contract/schemas/sandbox';
import { MAX_TRACES } from './state-schema';

export class TraceLog {
  /** Oldest first. */
  private items: Trace[];

  constructor(initial: Trace[] = []) {
    this.items = initial.slice(-MAX_TRACES);
  }

  add(trace: Trace): void {
    this.items.push(trace);
    if (this.items.length > MAX_TRACES) this.items = this.items.slice(-MAX_TRACES);
  }

  /** Newest first, optionally for one counterparty, at most `limit`. */
  list(query: { counterparty_guid?: string; limit?: number } = {}): Trace[] {
    const guid = query.counterparty_guid?.toLowerCase();
    const out: Trace[] = [];
    const limit = query.limit ?? MAX_TRACES;
    for (let i = this.items.length - 1; i >= 0 && out.length < limit; i--) {
      const t = this.items[i] as Trace;
      if (guid === undefined || t.counterparty_guid === guid) out.push(t);
    }
    return out;
  }

  /** Oldest first, for the state file. */
  all(): Trace[] {
    return this.items;
  }
}
