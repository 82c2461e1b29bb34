/**
 * The database's single writer (issue 12): a worker thread that owns the write connection, so a
 * commit's fsync never blocks the event loop that answers callbacks within their 1 s budget
 * (spec 4.2). The main thread hands it batches of ready rows (records.ts) and waits for
 * "committed"; reads use their own connection in the main thread and, WAL being what it is,
 * never wait for this one.
 *
 * The worker's code is `writerMain` below, sent to the worker as source text (`eval`), so it runs
 * the same from the TypeScript sources (tests), from the esbuild bundle (CLI, Electron main) and
 * in Electron, with no second entry file to ship; it loads libsql from the path the main thread
 * resolved. It may use only its own parameters and globals.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { BUSY_TIMEOUT_MS, libsqlPath } from './db';
import { type EventRow, ROW, type RetentionClass, UNINDEXED_KINDS } from './records';

/** Per class, the number of events kept (oldest trimmed first); null keeps everything. */
export type ClassCaps = Record<RetentionClass, number | null>;

/**
 * How a row (records.ts EventRow) goes into the database: the events table, then its text in the
 * full-text index. The writer runs these; the bench's store suite builds its million-event
 * profile with the same statements, so the profile is what the writer would have made.
 */
const INTO_EVENTS = `INSERT INTO events (seq, at, at_ms, kind, class, path, method, status, outcome, transaction_id,
       tx_lower, failed_check, obj, sub, duration_ms, warning, remote, size, record)`;
export const INSERT_EVENT_SQL = `${INTO_EVENTS}
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)`;
// A row (records.ts EventRow) is INSERT_EVENT_SQL's parameters as it is: its places are the
// statement's ?1…?19, and libsql binds an array by place, leaving the 20th (the search text)
// unused; so a row is bound with no copy and no argument list.
export const INSERT_TEXT_SQL = 'INSERT INTO events_fts (rowid, text) VALUES (?, ?)';
/** The same for a kind never indexed (records.ts UNINDEXED_KINDS): its text, lower-cased, in events_text. */
export const INSERT_UNINDEXED_TEXT_SQL = 'INSERT INTO events_text (text_seq, text) VALUES (?, ?)';
/**
 * The writer's way in (db.ts version 5): a new row's text waits in events_fts_pending,
 * lower-cased (reader.ts searches it there), and goes into the full-text index later, in chunks
 * (INDEX). A trigram row costs more than the event row itself, and FTS5 writes a segment per
 * transaction, so indexing each small group commit's rows in it was most of a durable
 * notification's cost.
 */
const INTO_PENDING = 'INSERT INTO events_fts_pending (pending_seq, text)';
/** Where the text of the kinds never indexed goes (records.ts UNINDEXED_KINDS, db.ts version 6). */
const INTO_TEXT = 'INSERT INTO events_text (text_seq, text)';
/**
 * Which of some transaction_ids (lower case) an accepted notification already carries: one probe
 * of events_tx per id, inside the writer's transaction (repeatCheck); the writer appends the
 * `(?, ?, …)` list, one statement per list length ({@link acceptedAmongSql}). The unary + keeps
 * kind and outcome out of the index choice: with no ANALYZE statistics SQLite would otherwise walk
 * events_kind_outcome, every accepted notification ever stored, per commit.
 */
const ACCEPTED_AMONG = `SELECT tx_lower AS t FROM events
  WHERE +kind = 'notification' AND +outcome = 'accepted' AND tx_lower IN `;
/** The statement the writer runs to check `n` transaction_ids. */
export function acceptedAmongSql(n: number): string {
  return `${ACCEPTED_AMONG}(${new Array(n).fill('?').join(', ')})`;
}

/**
 * The writer inserts up to this many rows with one statement (one VALUES list): a libsql call
 * costs about what a small row does (about 2.5 µs each for the row and for its text, measured
 * on a 32-row group commit), so a group commit of 32 rows makes 2 calls, not 64.
 */
export const ROWS_PER_INSERT = 32;

/**
 * When pending text is indexed: a chunk at a time, when the writer has been idle idleMs (between
 * chunks, requests that arrived go first), and after every commit while more than maxPending
 * rows wait (so a writer that is never idle keeps the backlog, and the scan search makes of it,
 * bounded).
 */
export const INDEX = { chunk: 512, maxPending: 20_000 } as const;

/**
 * How the writer makes room for the event loop when both share one core (the bench pins the
 * process to one CPU; a busy machine's scheduler may put them on one too). Linux lets a running
 * thread go on for the rest of its time slice before a thread it woke runs, so a callback
 * arriving while the writer commits a batch of callbacks waited for that: at 2,000 callbacks/s
 * (batches of about 40 rows, 1.6 ms of writing each, every 20 ms) 2–8 % of callbacks took over
 * 1 ms and the p99 was 1.4–2.7 ms, where the crypto floor's was 0.7–1.3 ms. So in a batch of at
 * most `upToBatch` non-durable rows the writer sleeps `ms` after every `everyRows` rows: a waiting
 * event loop gets the core then, and an idle one costs the batch about 70 µs per pause (the sleep
 * and the timer's slack). The rows go into SQLite ROWS_PER_INSERT at a time, and a pause follows
 * each such insert at once: the writer holds the core for one insert at a time (about 0.45 ms),
 * then for the commit. The same A/B rounds then gave 1.2–2.4 % over 1 ms and a p99 of
 * 1.1–1.5 ms (docs/benchmarks.md). A larger batch means the event loop was busy for the whole
 * coalescing window (at saturation a batch holds about 350 rows): pausing there would only add
 * thread switches (10–15 % of the throughput when every batch paused), so it runs at once, as a
 * durable commit always does (its callers are waiting for it).
 */
export const YIELD = { everyRows: 8, upToBatch: 128, ms: 0.02 } as const;

interface WorkerData {
  libsql: string;
  /** The INSERT … (columns) heads of the events and pending-text tables, and the rows per statement. */
  sql: {
    intoEvents: string;
    intoPending: string;
    intoText: string;
    acceptedAmong: string;
    rowsPerInsert: number;
  };
  /** records.ts UNINDEXED_KINDS. */
  unindexed: readonly string[];
  file: string;
  busyTimeoutMs: number;
  caps: ClassCaps;
  /** write: the writer; check: PRAGMA quick_check; checkpoint: the writer's checkpointer. */
  mode: 'write' | 'check' | 'checkpoint';
  /** write and checkpoint: the two ends of the channel between the writer and its checkpointer. */
  port?: MessagePort;
  checkpoint: { idleMs: number; maxBytes: number; hardBytes: number; catchUpBytes: number };
  index: { chunk: number; maxPending: number };
  yieldTo: { everyRows: number; upToBatch: number; ms: number };
  /** records.ts ROW: the places of a row's fields. */
  row: typeof ROW;
  /** WRITER_THREAD_NAME. */
  threadName: string;
}

/**
 * When the writer copies the WAL back into the database (a checkpoint). SQLite's automatic
 * checkpoint runs inside the commit that crosses 1,000 pages, so the notifications waiting on
 * that commit also wait for the copy and its fsync of the database file (a p99 of tens of ms).
 * The writer turns it off. When it has been idle idleMs it checkpoints itself (TRUNCATE: the WAL
 * file goes back to nothing). Under load, once about maxBytes went into the WAL since the last
 * request, it asks its checkpointer, a thread of its own with its own connection, for a PASSIVE
 * checkpoint, which WAL lets run beside the writer's commits; then for another pass over what was
 * committed meanwhile, until less than catchUpBytes is left, which the writer copies itself
 * between two commits so that the WAL is whole in the database and the next commit starts it
 * over. Done in the writer every 4 MB (SQLite's own 1,000 pages), each checkpoint held the
 * commits behind it for several ms: the notify bench's p99 was 16–18 ms, max 60+ ms; this way
 * 10.4–11.6 ms, max 25–32 ms, and 7.9–8.9 ms with the checkpointer at nice 10 (it yields the
 * CPU to the writer and the event loop). Past hardBytes since the WAL last started over (a checkpointer that
 * cannot keep up) the writer copies everything itself, so the WAL stays bounded.
 */
export const CHECKPOINT = {
  idleMs: 50,
  maxBytes: 16 * 1024 ** 2,
  hardBytes: 64 * 1024 ** 2,
  catchUpBytes: 128 * 1024,
} as const;

type Request =
  | {
      type: 'commit';
      rows: EventRow[];
      durable: boolean;
      meta?: [string, string][];
      keepAll?: boolean;
      /**
       * The places in `rows` of accepted notifications to store as repeats when an accepted
       * one with their transaction_id is stored already (or earlier in this batch).
       */
      check?: number[];
    }
  | { type: 'exec'; steps: Step[] }
  | { type: 'close' };

/**
 * One statement of a small state transaction (profile-db.ts): SQL and its parameters. The steps
 * of one `exec` request commit together, durably, or not at all.
 */
export type Step = readonly [sql: string, params: readonly unknown[]];

export interface Reply {
  ok: boolean;
  message?: string;
  code?: string;
  /** `commit`: the seq given to the batch's first new row (the others follow in order). */
  firstSeq?: number;
  /** `commit`: the places of the `check` rows stored as repeats. */
  repeats?: number[];
  /** `commit`: how many times the writer stepped aside for the event loop (YIELD). */
  yields?: number;
  /** `check` mode: quick_check's lines ("ok" when sound). */
  problems?: string[];
}

/** The writer thread's name on Linux (at most 15 bytes): `top -H` and the bench show it. */
export const WRITER_THREAD_NAME = 'dets-writer';
/** Its checkpointer's (CHECKPOINT). */
export const CHECKPOINT_THREAD_NAME = 'dets-checkpoint';

/* eslint-disable */
// Runs inside the worker (see above): plain JavaScript once esbuild has stripped the types.
function writerMain(require: (id: string) => any): void {
  const { parentPort, workerData } = require('node:worker_threads');
  const data = workerData as WorkerData;
  // On Linux the thread gets a name (top -H, /proc/<pid>/task/*/comm, the bench's CPU split);
  // elsewhere this does nothing.
  try {
    require('node:fs').writeFileSync('/proc/thread-self/comm', data.threadName);
  } catch {
    // not Linux, or /proc not mounted
  }
  const unindexed = new Set(data.unindexed);
  // What the writer sleeps on when it steps aside (YIELD): nothing ever wakes it but the timeout.
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const Database = require(data.libsql);
  const errorReply = (err: any) => ({
    ok: false,
    message: String((err && err.message) || err),
    code: err && typeof err.code === 'string' ? err.code : undefined,
  });
  if (data.mode === 'check') {
    // PRAGMA quick_check reads every page: O(size), so it runs here, beside the writer, and
    // never delays the open or a commit.
    let reply: Reply;
    try {
      const db = new Database(data.file, { readonly: true, fileMustExist: true });
      db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
      const rows = db.prepare('PRAGMA quick_check(20)').raw(true).all() as unknown[][];
      db.close();
      reply = { ok: true, problems: rows.map((r) => String(r[0])) };
    } catch (err) {
      reply = errorReply(err);
    }
    parentPort.postMessage(reply);
    return;
  }
  if (data.mode === 'checkpoint') {
    // The writer's checkpointer: a PASSIVE checkpoint on request, never waiting for anyone (a
    // busy WAL is tried again at the next request); it answers the writer when done.
    const cdb = new Database(data.file);
    cdb.pragma('busy_timeout = 0');
    cdb.pragma('wal_autocheckpoint = 0');
    // On Linux this thread yields the CPU to the writer and the event loop (nice 10: its copying
    // can wait, their commits and answers cannot); elsewhere it runs as it is.
    try {
      const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
      if (Number.isInteger(tid) && tid > 0) require('node:os').setPriority(tid, 10);
    } catch {
      // not Linux, or not allowed
    }
    data.port!.on('message', (m: any) => {
      if (m === 'close') {
        cdb.close();
        data.port!.close();
        return;
      }
      try {
        cdb.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // busy: the writer asks again after its next maxBytes
      }
      data.port!.postMessage('done');
    });
    return;
  }
  const db = new Database(data.file);
  db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
  db.pragma('journal_mode = WAL');
  let sync = 'FULL';
  db.pragma('synchronous = FULL');
  db.pragma('wal_autocheckpoint = 0');
  function setSync(want: string): void {
    if (want !== sync) {
      db.pragma(`synchronous = ${want}`);
      sync = want;
    }
  }
  // Bytes of rows committed since the last checkpoint (a measure of the WAL's growth).
  let walBytes = 0;
  // Whether the checkpointer is at work, and what went into the WAL since it last went back to
  // its start (a checkpoint that copied every frame, with no commit after it before the next
  // commit's restart; bounded by CHECKPOINT.hardBytes).
  let checkpointing = false;
  let sinceRestart = 0;
  /**
   * The writer's own PASSIVE checkpoint, between commits: after the checkpointer's, it copies only
   * the frames committed while that one ran, so the WAL is whole in the database and the next
   * commit starts it over (with no commit beside it, nothing stops it from copying every frame).
   */
  function catchUp(): void {
    try {
      const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
      walBytes = 0;
      if (r && r.busy === 0 && r.log === r.checkpointed) sinceRestart = 0;
    } catch {
      // a reader or another writer holds the WAL: the next one tries again
    }
  }
  data.port?.on('message', () => {
    // What was committed while it ran is copied by another pass beside the commits, until so
    // little is left that the writer's own pass is a short one (each pass is shorter: copying
    // outruns what the commits add).
    if (walBytes > data.checkpoint.catchUpBytes && sinceRestart < data.checkpoint.hardBytes) {
      walBytes = 0;
      data.port!.postMessage('checkpoint');
      return;
    }
    checkpointing = false;
    catchUp();
  });
  data.port?.unref();
  let idleTimer: any = null;
  /**
   * Idle: TRUNCATE (the WAL file goes back to nothing, so a burst leaves no large file behind),
   * without waiting for a reader (busy_timeout 0: a reader's snapshot makes it a partial one).
   * Under load the checkpointer and catchUp do it (CHECKPOINT).
   */
  function checkpointIdle(): void {
    if (walBytes === 0 && sinceRestart === 0) return;
    try {
      db.pragma('busy_timeout = 0');
      try {
        db.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
      }
      walBytes = 0;
      sinceRestart = 0;
    } catch {
      // a reader or another writer holds the WAL: the next idle moment tries again
    }
  }

  // Text waiting for the full-text index (about: another process may index some too).
  const pendingTop = db.prepare(
    'SELECT max(pending_seq) AS s, count(*) AS n FROM (SELECT pending_seq FROM events_fts_pending ORDER BY pending_seq LIMIT ?)',
  );
  const moveText = db.prepare(
    'INSERT INTO events_fts (rowid, text) SELECT pending_seq, text FROM events_fts_pending WHERE pending_seq <= ?',
  );
  const dropPending = db.prepare('DELETE FROM events_fts_pending WHERE pending_seq <= ?');
  let pending = Number(db.prepare('SELECT count(*) AS n FROM events_fts_pending').get().n);
  /** Moves the oldest chunk of pending text into the index: its rows leave the scan for the index in one transaction. */
  function indexChunk(): void {
    // Derived data: if lost in a power cut, it is still pending (the transaction is atomic).
    setSync('NORMAL');
    let moved = 0;
    inTransaction(() => {
      const top = pendingTop.get(data.index.chunk);
      if (!top || top.s === null) return;
      moveText.run(top.s);
      dropPending.run(top.s);
      moved = Number(top.n);
      walBytes += moved * 512;
    });
    pending = moved < data.index.chunk ? 0 : Math.max(0, pending - moved);
  }
  function idle(): void {
    idleTimer = null;
    if (pending > 0) {
      try {
        indexChunk();
      } catch {
        // busy or failing: the next idle moment tries again
        idleTimer = setTimeout(idle, data.checkpoint.idleMs);
        return;
      }
      idleTimer = setTimeout(idle, 0);
      return;
    }
    checkpointIdle();
  }
  function wrote(bytes: number, rows: number): void {
    // The pages a commit writes: its rows, and about ten index, table and counter pages.
    walBytes += bytes + 10 * 4096;
    sinceRestart += bytes + 10 * 4096;
    pending += rows;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    if (walBytes >= data.checkpoint.maxBytes && data.port && !checkpointing) {
      // Beside the commits, on the checkpointer's thread; what is written meanwhile counts
      // toward the next one.
      checkpointing = true;
      walBytes = 0;
      data.port.postMessage('checkpoint');
    }
    const hard =
      sinceRestart >= data.checkpoint.hardBytes || (!data.port && walBytes >= data.checkpoint.maxBytes);
    if (pending > data.index.maxPending || hard)
      setImmediate(() => {
        try {
          if (pending > data.index.maxPending) indexChunk();
        } catch {
          // the idle moment tries again
        }
        if (hard) catchUp();
      });
    idleTimer = setTimeout(idle, data.checkpoint.idleMs);
  }
  if (pending > 0) idleTimer = setTimeout(idle, data.checkpoint.idleMs);
  // Statements inserting n rows at once, by head and n (at most 2 × rowsPerInsert of them).
  const many = new Map<string, any>();
  function insertMany(head: string, width: number, params: unknown[]): void {
    const n = params.length / width;
    if (n === 0) return;
    const key = `${n} ${head}`;
    let st = many.get(key);
    if (!st) {
      const group = `(${new Array(width).fill('?').join(', ')})`;
      st = db.prepare(`${head} VALUES ${new Array(n).fill(group).join(', ')}`);
      many.set(key, st);
    }
    st.run(params);
  }
  const bump = db.prepare(
    `INSERT INTO class_stats (class, count, bytes) VALUES (?, ?, ?)
     ON CONFLICT (class) DO UPDATE SET count = count + excluded.count, bytes = bytes + excluded.bytes`,
  );
  const countOf = db.prepare('SELECT count FROM class_stats WHERE class = ?');
  const oldest = db.prepare(
    `SELECT max(seq) AS upto, count(*) AS n, coalesce(sum(size), 0) AS bytes
     FROM (SELECT seq, size FROM events WHERE class = ? ORDER BY seq LIMIT ?)`,
  );
  const trim = db.prepare('DELETE FROM events WHERE class = ? AND seq <= ?');
  const trimmed = db.prepare(
    'UPDATE class_stats SET count = count - ?, bytes = bytes - ?, trimmed = trimmed + ? WHERE class = ?',
  );
  const high = db.prepare(
    `INSERT INTO meta (key, value) VALUES ('high_seq', ?)
     ON CONFLICT (key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))`,
  );

  function inTransaction(fn: () => void): void {
    db.exec('BEGIN IMMEDIATE');
    try {
      fn();
      db.exec('COMMIT');
    } catch (err) {
      try {
        if (db.inTransaction) db.exec('ROLLBACK');
      } catch {
        // the connection rolled back by itself
      }
      throw err;
    }
  }

  const setMeta = db.prepare(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );

  const maxSeq = db.prepare(
    "SELECT max(coalesce((SELECT max(seq) FROM events), 0), coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'high_seq'), 0)) AS s",
  );
  // A new row (seq 0) gets the next seq inside the write transaction, so ids never collide even
  // with another process writing to the same file, and never repeat (meta.high_seq outlives
  // trimming); its record's JSON starts with the pending id, replaced here.
  const PENDING = '{"id":"e000000000000"';

  const acceptedAmong = new Map<number, any>();
  /**
   * The places of the `check` rows that repeat an accepted notification, stored or earlier in
   * the batch (DESIGN.md "Bank endpoints": a repeat is still acknowledged; its event says so).
   */
  function repeatsOf(rows: EventRow[], check: number[], R: typeof data.row): number[] {
    if (check.length === 0) return [];
    const want = new Set(check);
    let st = acceptedAmong.get(check.length);
    if (!st) {
      st = db.prepare(`${data.sql.acceptedAmong}(${new Array(check.length).fill('?').join(', ')})`);
      if (acceptedAmong.size > 64) acceptedAmong.clear();
      acceptedAmong.set(check.length, st);
    }
    const stored = new Set(st.all(check.map((i) => rows[i]![R.tx_lower])).map((r: any) => r.t));
    const acceptedNow = new Set();
    const repeats: number[] = [];
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const tx = r[R.tx_lower];
      if (r[R.kind] !== 'notification' || r[R.outcome] !== 'accepted' || tx === null) continue;
      if (want.has(i) && (stored.has(tx) || acceptedNow.has(tx))) {
        r[R.outcome] = 'repeat';
        repeats.push(i);
      } else acceptedNow.add(tx);
    }
    return repeats;
  }

  function commit(
    rows: EventRow[],
    durable: boolean,
    meta: [string, string][],
    keepAll: boolean,
    check: number[],
  ): { first: number; repeats: number[]; yields: number } {
    // A batch with nothing durable in it (callbacks, exchanges) commits without its own fsync;
    // the next durable commit's fsync of the WAL covers its frames too (WAL appends in order).
    setSync(durable ? 'FULL' : 'NORMAL');
    let first = 0;
    let bytes = 0;
    let texts = 0;
    const R = data.row;
    let repeats: number[] = [];
    // YIELD: a small batch nobody waits for steps aside every few rows.
    const every = !durable && rows.length <= data.yieldTo.upToBatch ? data.yieldTo.everyRows : 0;
    let yields = 0;
    inTransaction(() => {
      repeats = repeatsOf(rows, check, R);
      const repeat = new Set(repeats);
      const added = new Map<string, { n: number; bytes: number }>();
      let top = 0;
      let next = 0;
      const per = data.sql.rowsPerInsert;
      // A row's first R.search places are its event columns (records.ts EventRow).
      let eventParams: unknown[] = [];
      let textParams: unknown[] = [];
      let plainParams: unknown[] = [];
      for (let place = 0; place < rows.length; place++) {
        const r = rows[place]!;
        let seq = r[R.seq];
        if (seq === 0) {
          if (next === 0) next = first = Number(maxSeq.get().s) + 1;
          seq = r[R.seq] = next++;
          const record = r[R.record];
          if (record.startsWith(PENDING))
            r[R.record] = `{"id":"e${String(seq).padStart(12, '0')}"${record.slice(PENDING.length)}`;
        }
        if (repeat.has(place)) {
          // Rare (a re-sent notification): the record says what the column says.
          const whole = JSON.parse(r[R.record]);
          whole.outcome = 'repeat';
          r[R.record] = JSON.stringify(whole);
        }
        for (let i = 0; i < R.search; i++) eventParams.push(r[i]);
        if (eventParams.length === per * R.search) {
          insertMany(data.sql.intoEvents, R.search, eventParams);
          eventParams = [];
        }
        const size = r[R.size];
        const search = r[R.search];
        if (search && unindexed.has(r[R.kind])) {
          plainParams.push(seq, search.toLowerCase());
          if (plainParams.length === per * 2) {
            insertMany(data.sql.intoText, 2, plainParams);
            plainParams = [];
          }
        } else if (search) {
          textParams.push(seq, search.toLowerCase());
          if (textParams.length === per * 2) {
            insertMany(data.sql.intoPending, 2, textParams);
            textParams = [];
          }
          texts++;
        }
        bytes += size + search.length;
        const cls = r[R.cls];
        const a = added.get(cls);
        if (a) {
          a.n += 1;
          a.bytes += size;
        } else added.set(cls, { n: 1, bytes: size });
        if (seq > top) top = seq;
        if (every > 0 && (place + 1) % every === 0 && place + 1 < rows.length) {
          Atomics.wait(nap, 0, 0, data.yieldTo.ms);
          yields++;
        }
      }
      insertMany(data.sql.intoEvents, R.search, eventParams);
      insertMany(data.sql.intoPending, 2, textParams);
      insertMany(data.sql.intoText, 2, plainParams);
      for (const [cls, a] of added) {
        bump.run(cls, a.n, a.bytes);
        const cap = data.caps[cls as RetentionClass];
        if (keepAll || cap === null || cap === undefined) continue;
        const count = Number(countOf.get(cls)?.count ?? 0);
        if (count <= cap) continue;
        const o = oldest.get(cls, count - cap);
        if (!o || o.upto === null) continue;
        trim.run(cls, o.upto);
        trimmed.run(o.n, o.bytes, o.n, cls);
      }
      if (top > 0) high.run(String(top));
      for (const [k, v] of meta) setMeta.run(k, v);
    });
    wrote(bytes, texts);
    return { first, repeats, yields };
  }

  // The state tables' statements (sandbox, walkthrough), prepared once each.
  const prepared = new Map<string, any>();
  function exec(steps: Step[]): void {
    setSync('FULL');
    inTransaction(() => {
      for (const [sql, params] of steps) {
        let st = prepared.get(sql);
        if (!st) {
          st = db.prepare(sql);
          if (prepared.size > 100) prepared.clear();
          prepared.set(sql, st);
        }
        st.run(...params);
      }
    });
    wrote(4096, 0);
  }

  parentPort.on('message', (m: Request & { id: number }) => {
    let reply: Reply = { ok: true };
    try {
      if (m.type === 'exec') exec(m.steps);
      else if (m.type === 'commit') {
        const c = commit(m.rows, m.durable, m.meta ?? [], m.keepAll === true, m.check ?? []);
        reply = {
          ok: true,
          firstSeq: c.first,
          yields: c.yields,
          ...(c.repeats.length ? { repeats: c.repeats } : {}),
        };
      } else if (m.type === 'close') {
        if (idleTimer) clearTimeout(idleTimer);
        data.port?.postMessage('close');
        try {
          db.pragma('wal_checkpoint(PASSIVE)');
        } catch {
          // a reader holds the WAL; the next open checkpoints
        }
        db.close();
      }
    } catch (err) {
      reply = errorReply(err);
    }
    parentPort.postMessage({ id: m.id, ...reply });
  });
}
/* eslint-enable */

const SOURCE = `(${writerMain.toString()})(require);`;

function startWorker(data: WorkerData): Worker {
  return new Worker(SOURCE, {
    eval: true,
    workerData: data,
    ...(data.port ? { transferList: [data.port] } : {}),
  });
}

/** The main thread's side of the writer: one request at a time per caller, replies in order. */
/** What every writer thread is told of the statements it runs. */
const STATEMENTS = {
  sql: {
    intoEvents: INTO_EVENTS,
    intoPending: INTO_PENDING,
    intoText: INTO_TEXT,
    acceptedAmong: ACCEPTED_AMONG,
    rowsPerInsert: ROWS_PER_INSERT,
  },
  unindexed: UNINDEXED_KINDS,
};

/** What every thread of the store is started with, but its mode, port and name. */
function commonData(file: string, caps: ClassCaps) {
  return {
    libsql: libsqlPath(),
    ...STATEMENTS,
    file,
    busyTimeoutMs: BUSY_TIMEOUT_MS,
    caps,
    checkpoint: CHECKPOINT,
    index: INDEX,
    yieldTo: YIELD,
    row: ROW,
  };
}

export class WriterClient {
  private readonly worker: Worker;
  /** The writer's checkpointer (CHECKPOINT): its own thread and connection. */
  private readonly checkpointer: Worker;
  /** Settles when the checkpointer's thread has ended, however (closed, failed, terminated). */
  private readonly checkpointerEnded: Promise<unknown>;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private dead: Error | null = null;
  private closing = false;

  constructor(file: string, caps: ClassCaps) {
    const channel = new MessageChannel();
    const common = commonData(file, caps);
    this.checkpointer = startWorker({
      ...common,
      mode: 'checkpoint',
      port: channel.port2,
      threadName: CHECKPOINT_THREAD_NAME,
    });
    this.checkpointer.unref();
    this.checkpointerEnded = new Promise((resolve) => this.checkpointer.once('exit', resolve));
    // Its failure only leaves the checkpoints to the writer (CHECKPOINT.hardBytes).
    this.checkpointer.on('error', () => undefined);
    this.worker = startWorker({
      ...common,
      mode: 'write',
      port: channel.port1,
      threadName: WRITER_THREAD_NAME,
    });
    this.worker.unref();
    this.worker.on('message', (m: Reply & { id: number }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) this.worker.unref();
      w?.resolve(m);
    });
    const die = (err: Error) => {
      // A writer that stopped leaves no checkpointer behind (the store starts a new pair).
      if (this.dead === null && !this.closing) void this.checkpointer.terminate();
      this.dead ??= err;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    this.worker.on('error', die);
    this.worker.on('exit', (code) => die(new Error(`the database writer stopped (exit ${code})`)));
  }

  get alive(): boolean {
    return this.dead === null;
  }

  request(req: Request): Promise<Reply> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      // Pending work keeps the process alive; an idle writer does not.
      this.worker.ref();
      this.worker.postMessage({ id, ...req });
    });
  }

  async close(): Promise<void> {
    if (this.dead) {
      await this.checkpointer.terminate();
      return;
    }
    this.closing = true;
    await this.request({ type: 'close' }).catch(() => undefined);
    await this.worker.terminate();
    // The writer's close told the checkpointer to close its connection and its port, after which
    // its thread ends by itself; stopping both threads at once could crash the process as it
    // exits (libsql's native teardown, seen under vitest's forks). Cut it only if it hangs.
    // (A checkpointer that failed earlier has ended already: nothing to wait for.)
    const late = setTimeout(() => void this.checkpointer.terminate(), 2_000);
    await this.checkpointerEnded;
    clearTimeout(late);
  }
}

/** Runs `PRAGMA quick_check` on its own thread and connection: the problems found, or []. */
export function quickCheck(file: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const w = startWorker({ ...commonData(file, {} as ClassCaps), mode: 'check', threadName: 'dets-check' });
    w.once('message', (r: Reply) => {
      void w.terminate();
      if (r.ok) resolve((r.problems ?? []).filter((p) => p !== 'ok'));
      else resolve([r.message ?? 'quick_check failed']);
    });
    w.once('error', reject);
  });
}
