/** Pure accounting for the notify suite: which acknowledged transaction_ids the store lacks. */

export interface DurabilityCount {
  acknowledged: number;
  stored: number;
  missing: number;
  /** A few of the missing ids, for the report. */
  missingSample: string[];
}

/** Compares every id acknowledged with 200 against the ids found in the store. */
export function countDurable(acknowledged: Iterable<string>, stored: ReadonlySet<string>): DurabilityCount {
  const acked = new Set(acknowledged);
  const missingSample: string[] = [];
  let missing = 0;
  for (const id of acked) {
    if (stored.has(id)) continue;
    missing++;
    if (missingSample.length < 5) missingSample.push(id);
  }
  return { acknowledged: acked.size, stored: stored.size, missing, missingSample };
}

/** "acknowledged N, stored N, missing 0" */
export function formatDurability(c: DurabilityCount): string {
  return `acknowledged ${c.acknowledged}, stored ${c.stored}, missing ${c.missing}${c.missing ? ` (e.g. ${c.missingSample.join(', ')})` : ''}`;
}
