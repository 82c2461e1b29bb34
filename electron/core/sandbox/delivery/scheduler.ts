/**
 * One timer for every delivery waiting on its ladder (issue 27: "one timer wheel/heap, not one
 * timer per delivery"): a binary min-heap of (due time, id) and a single `setTimeout` armed for
 * the earliest. Thousands of deliveries in flight cost one timer and O(log n) per change.
 *
 * A class: it has a lifecycle (its timer) and an invariant across calls (the heap order).
 */

interface Entry {
  at: number;
  id: string;
  /** Insertion order, so two entries due at once fire in the order they were scheduled. */
  order: number;
}

/** Called with each entry as it falls due: its id and the time it was planned for (ms). */
export type DueHandler = (id: string, plannedAtMs: number) => void;

/**
 * @example
 * const scheduler = new DeliveryScheduler(Date.now, (id, planned) => attempt(id, planned));
 * scheduler.schedule(deliveryId, Date.now() + 1000);
 * scheduler.close();
 */
export class DeliveryScheduler {
  private readonly heap: Entry[] = [];
  /** The live entry of each id: rescheduling replaces it, cancelling drops it (lazy deletion). */
  private readonly live = new Map<string, Entry>();
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Infinity;
  private order = 0;
  private closed = false;

  constructor(
    private readonly now: () => number,
    private readonly onDue: DueHandler,
  ) {}

  /** How many deliveries wait. */
  get size(): number {
    return this.live.size;
  }

  /** Plans `id` for `atMs` (replacing an earlier plan for it). */
  schedule(id: string, atMs: number): void {
    if (this.closed) return;
    const entry: Entry = { at: atMs, id, order: this.order++ };
    this.live.set(id, entry);
    this.push(entry);
    if (atMs < this.armedFor) this.arm();
  }

  /** Drops `id`'s plan, if any. */
  cancel(id: string): void {
    this.live.delete(id);
  }

  /** Stops the timer; nothing fires after this. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.heap.length = 0;
    this.live.clear();
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = Infinity;
    const top = this.peekLive();
    if (!top || this.closed) return;
    this.armedFor = top.at;
    // setTimeout's longest wait is 2^31-1 ms; a later entry re-arms when this one fires.
    const delay = Math.min(Math.max(0, top.at - this.now()), 2 ** 31 - 1);
    this.timer = setTimeout(() => this.fire(), delay);
    this.timer.unref?.();
  }

  private fire(): void {
    this.timer = null;
    this.armedFor = Infinity;
    const now = this.now();
    for (let top = this.peekLive(); top && top.at <= now && !this.closed; top = this.peekLive()) {
      this.pop();
      this.live.delete(top.id);
      this.onDue(top.id, top.at);
    }
    this.arm();
  }

  /** The earliest entry that is still live, dropping replaced or cancelled ones from the top. */
  private peekLive(): Entry | undefined {
    while (this.heap.length > 0) {
      const top = this.heap[0]!;
      if (this.live.get(top.id) === top) return top;
      this.pop();
    }
    return undefined;
  }

  private push(entry: Entry): void {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (h.length === 0 || !last) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && before(h[l]!, h[m]!)) m = l;
      if (r < h.length && before(h[r]!, h[m]!)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

function before(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.order < b.order);
}
