/**
 * Where deliveries live: the profile database's `sandbox_deliveries` (store/sql.ts MIGRATIONS
 * version 9, its statements DELIVERY_SQL), one row per delivery holding the whole record, written
 * on the profile's writer thread in small durable transactions (store/profile-db.ts), so a
 * delivery on its ladder survives `kill -9` and resumes. Rows are validated on load; a row that
 * does not validate is skipped and reported (one bad row must not stop the sandbox or lose the
 * others), never rewritten.
 */
import { z } from 'zod';
import { Delivery } from '../../../contract/schemas/delivery';
import { PendingSet } from '../../common';
import { acquireProfileDb, DELIVERY_SQL, type ProfileDb } from '../../store';

/** A delivery as stored: the public record and the body it sends (no secret: a transaction_id). */
export const StoredDelivery = Delivery.extend({ body: z.string().max(64 * 1024) });
export type StoredDelivery = z.infer<typeof StoredDelivery>;

export class DeliveryStore {
  private readonly pending = new PendingSet();

  private constructor(private readonly pdb: ProfileDb) {}

  static open(dataDir: string): DeliveryStore {
    return new DeliveryStore(acquireProfileDb(dataDir));
  }

  /**
   * The deliveries still on their ladder, and the newest `recent` finished ones (newest first);
   * `damaged` names the rows that did not validate.
   */
  load(recent: number): { active: StoredDelivery[]; finished: StoredDelivery[]; damaged: string[] } {
    const damaged: string[] = [];
    const parse = (rows: Record<string, unknown>[]) =>
      rows.flatMap((r) => {
        try {
          const parsed = StoredDelivery.safeParse(JSON.parse(String(r.record)));
          if (parsed.success) return [parsed.data];
        } catch {
          // counted below
        }
        damaged.push(String(r.delivery_id));
        return [];
      });
    const db = this.pdb.db;
    return {
      active: parse(db.prepare(DELIVERY_SQL.active).all()),
      finished: parse(db.prepare(DELIVERY_SQL.recentFinished).all(recent)),
      damaged,
    };
  }

  /** One delivery by id from the database (older than what is kept in memory), or null. */
  byId(id: string): StoredDelivery | null {
    const row = this.pdb.db.prepare(DELIVERY_SQL.byId).get(id);
    if (!row) return null;
    try {
      const parsed = StoredDelivery.safeParse(JSON.parse(String(row.record)));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** Writes the delivery's row (a new one also trims the oldest finished beyond the cap). */
  save(d: StoredDelivery, isNew: boolean): Promise<void> {
    const nextAt = d.next_at === null ? null : Date.parse(d.next_at);
    const p = this.pdb.write([
      [
        DELIVERY_SQL.upsert,
        [
          d.delivery_id,
          d.counterparty_guid,
          d.transaction_id.toLowerCase(),
          d.state,
          nextAt,
          JSON.stringify(d),
        ],
      ],
      ...(isNew ? [[DELIVERY_SQL.trim, []] as [string, []]] : []),
    ]);
    return this.pending.track(p);
  }

  flush(): Promise<void> {
    return this.pending.settle();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.pdb.release();
  }
}
