/**
 * Promises still running that a close must wait for (a store's writes, a ladder's attempts):
 * tracked as they start, forgotten as they settle, awaited all at once. Written once for every
 * domain that flushes before it closes.
 */
export class PendingSet {
  private readonly pending = new Set<Promise<unknown>>();

  /** How many are still running. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Tracks `p` until it settles and hands it back unchanged (its rejection stays the caller's).
   *
   * @example
   * return this.writes.track(this.pdb.write(steps));
   */
  track<T>(p: Promise<T>): Promise<T> {
    const settled = p.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
    return p;
  }

  /** Waits until everything tracked so far, and anything tracked meanwhile, has settled. */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
