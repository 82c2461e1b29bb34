/**
 * A group commit of event rows (issue 12; runs inside writer-worker.ts): ids given inside the
 * write transaction, repeats decided there, rows and their text inserted ROWS_PER_INSERT at a
 * time, per-class counts kept and each class trimmed to its cap, and meta.high_seq raised, all
 * in one transaction.
 */
import type { Statement } from './db';
import {
  type EventRow,
  formatEventId,
  PENDING_ID,
  ROW,
  type RetentionClass,
  UNINDEXED_KINDS,
} from './records';
import {
  acceptedAmongSql,
  BUMP_CLASS_SQL,
  CLASS_COUNT_SQL,
  EVENT_COLUMNS,
  INTO_EVENTS,
  INTO_PENDING,
  INTO_TEXT,
  MAX_SEQ_SQL,
  OLDEST_OF_CLASS_SQL,
  RAISE_HIGH_SEQ_SQL,
  ROWS_PER_INSERT,
  SET_META_SQL,
  TRIM_CLASS_SQL,
  TRIMMED_SQL,
} from './sql';
import type { WriterConnection } from './writer-connection';
import { type ClassCaps, YIELD } from './writer-protocol';

/** What a commit did: the first new seq, the places stored as repeats, its pauses, its size. */
export interface Committed {
  first: number;
  repeats: number[];
  yields: number;
  /** Bytes of rows and text written (writer-upkeep.ts counts the WAL's growth with it). */
  bytes: number;
  /** Rows of text now waiting for the full-text index. */
  texts: number;
}

/** A commit's options, as the request carries them. */
export interface CommitOptions {
  durable: boolean;
  meta: [string, string][];
  /** No trimming (a migration or a recovery keeps every event). */
  keepAll: boolean;
  /** The places of the rows to check for an earlier acceptance (AppendOptions.repeatCheck). */
  check: number[];
}

/**
 * A new row's record starts with the pending id (records.ts PENDING_ID, always its first key),
 * replaced here with the seq the row gets.
 */
const PENDING_PREFIX = `{"id":"${PENDING_ID}"`;

/** Parameters of one kind of row, flushed into SQLite ROWS_PER_INSERT rows at a time. */
class RowParams {
  private params: unknown[] = [];
  private readonly full: number;

  constructor(
    private readonly conn: WriterConnection,
    private readonly head: string,
    private readonly width: number,
  ) {
    this.full = ROWS_PER_INSERT * width;
  }

  /** Where a row's parameters are pushed, flat (then flushIfFull). */
  get list(): unknown[] {
    return this.params;
  }

  /** Inserts what is there when a statement's worth is; true when it did. */
  flushIfFull(): boolean {
    if (this.params.length < this.full) return false;
    this.flush();
    return true;
  }

  flush(): void {
    this.conn.insertRows(this.head, this.width, this.params);
    this.params = [];
  }
}

/** The writer's event commits and the statements they run, prepared once. */
export class EventCommitter {
  private readonly bump: Statement;
  private readonly countOf: Statement;
  private readonly oldest: Statement;
  private readonly trim: Statement;
  private readonly trimmed: Statement;
  private readonly high: Statement;
  private readonly setMeta: Statement;
  private readonly maxSeq: Statement;
  /** acceptedAmongSql(n) by n (bounded: cleared past 64). */
  private readonly acceptedAmong = new Map<number, Statement>();
  private readonly unindexed = new Set(UNINDEXED_KINDS);
  /** What the writer sleeps on when it steps aside (YIELD): nothing ever wakes it but the timeout. */
  private readonly nap = new Int32Array(new SharedArrayBuffer(4));

  constructor(
    private readonly conn: WriterConnection,
    private readonly caps: ClassCaps,
  ) {
    const db = conn.db;
    this.bump = db.prepare(BUMP_CLASS_SQL);
    this.countOf = db.prepare(CLASS_COUNT_SQL);
    this.oldest = db.prepare(OLDEST_OF_CLASS_SQL);
    this.trim = db.prepare(TRIM_CLASS_SQL);
    this.trimmed = db.prepare(TRIMMED_SQL);
    this.high = db.prepare(RAISE_HIGH_SEQ_SQL);
    this.setMeta = db.prepare(SET_META_SQL);
    this.maxSeq = db.prepare(MAX_SEQ_SQL);
  }

  /**
   * Stores `rows` in one transaction. A new row (seq 0) gets the next seq inside the write
   * transaction, so ids never collide even with another process writing to the same file, and
   * never repeat (meta.high_seq outlives trimming).
   */
  commit(rows: EventRow[], options: CommitOptions): Committed {
    this.conn.setSync(options.durable ? 'FULL' : 'NORMAL');
    // YIELD: a small batch nobody waits for steps aside every few rows.
    const every = !options.durable && rows.length <= YIELD.upToBatch ? YIELD.everyRows : 0;
    const done: Committed = { first: 0, repeats: [], yields: 0, bytes: 0, texts: 0 };
    this.conn.inTransaction(() => {
      done.repeats = this.repeatsOf(rows, options.check);
      const repeat = new Set(done.repeats);
      const added = new Map<string, { n: number; bytes: number }>();
      const events = new RowParams(this.conn, INTO_EVENTS, EVENT_COLUMNS);
      const texts = new RowParams(this.conn, INTO_PENDING, 2);
      const plain = new RowParams(this.conn, INTO_TEXT, 2);
      let top = 0;
      let next = 0;
      for (let place = 0; place < rows.length; place++) {
        const r = rows[place]!;
        let seq = r[ROW.seq];
        if (seq === 0) {
          if (next === 0) next = done.first = Number(this.maxSeq.get()?.s) + 1;
          seq = next++;
          this.giveSeq(r, seq);
        }
        if (repeat.has(place)) markRepeat(r);
        const list = events.list;
        // A row's first EVENT_COLUMNS places are its event columns (records.ts EventRow).
        for (let i = 0; i < EVENT_COLUMNS; i++) list.push(r[i]);
        events.flushIfFull();
        const size = r[ROW.size];
        const search = r[ROW.search];
        if (search && this.unindexed.has(r[ROW.kind])) {
          plain.list.push(seq, search.toLowerCase());
          plain.flushIfFull();
        } else if (search) {
          texts.list.push(seq, search.toLowerCase());
          texts.flushIfFull();
          done.texts++;
        }
        done.bytes += size + search.length;
        const a = added.get(r[ROW.cls]);
        if (a) {
          a.n += 1;
          a.bytes += size;
        } else added.set(r[ROW.cls], { n: 1, bytes: size });
        if (seq > top) top = seq;
        if (every > 0 && (place + 1) % every === 0 && place + 1 < rows.length) {
          Atomics.wait(this.nap, 0, 0, YIELD.ms);
          done.yields++;
        }
      }
      events.flush();
      texts.flush();
      plain.flush();
      this.count(added, options.keepAll);
      if (top > 0) this.high.run(String(top));
      for (const [k, v] of options.meta) this.setMeta.run(k, v);
    });
    return done;
  }

  /** The row's seq, and its record's pending id replaced with the id it names. */
  private giveSeq(r: EventRow, seq: number): void {
    r[ROW.seq] = seq;
    const record = r[ROW.record];
    if (record.startsWith(PENDING_PREFIX))
      r[ROW.record] = `{"id":"${formatEventId(seq)}"${record.slice(PENDING_PREFIX.length)}`;
  }

  /** The classes' counts raised by what was added, then each trimmed to its cap (unless keepAll). */
  private count(added: Map<string, { n: number; bytes: number }>, keepAll: boolean): void {
    for (const [cls, a] of added) {
      this.bump.run(cls, a.n, a.bytes);
      const cap = this.caps[cls as RetentionClass];
      if (keepAll || cap === null || cap === undefined) continue;
      const count = Number(this.countOf.get(cls)?.count ?? 0);
      if (count <= cap) continue;
      const o = this.oldest.get(cls, count - cap);
      if (!o || o.upto === null) continue;
      this.trim.run(cls, o.upto);
      this.trimmed.run(o.n, o.bytes, o.n, cls);
    }
  }

  /**
   * The places of the `check` rows that repeat an accepted notification, stored or earlier in
   * the batch (DESIGN.md "Bank endpoints": a repeat is still acknowledged; its event says so).
   * Their outcome column says so from here on.
   */
  private repeatsOf(rows: EventRow[], check: number[]): number[] {
    if (check.length === 0) return [];
    const want = new Set(check);
    let st = this.acceptedAmong.get(check.length);
    if (!st) {
      st = this.conn.db.prepare(acceptedAmongSql(check.length));
      if (this.acceptedAmong.size > 64) this.acceptedAmong.clear();
      this.acceptedAmong.set(check.length, st);
    }
    const stored = new Set(st.all(check.map((i) => rows[i]![ROW.tx_lower])).map((r) => r.t));
    const acceptedNow = new Set<string>();
    const repeats: number[] = [];
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const tx = r[ROW.tx_lower];
      if (r[ROW.kind] !== 'notification' || r[ROW.outcome] !== 'accepted' || tx === null) continue;
      if (want.has(i) && (stored.has(tx) || acceptedNow.has(tx))) {
        r[ROW.outcome] = 'repeat';
        repeats.push(i);
      } else acceptedNow.add(tx);
    }
    return repeats;
  }
}

/** Rare (a re-sent notification): the record says what the outcome column says. */
function markRepeat(r: EventRow): void {
  const whole = JSON.parse(r[ROW.record]) as { outcome?: string };
  whole.outcome = 'repeat';
  r[ROW.record] = JSON.stringify(whole);
}
