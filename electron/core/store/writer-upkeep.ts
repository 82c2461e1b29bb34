/**
 * What the writer thread does besides storing (issue 12; runs inside writer-worker.ts): it keeps
 * the WAL bounded with checkpoints (writer-protocol.ts CHECKPOINT: its own when idle, its
 * checkpointer's beside the commits under load) and moves the text waiting in
 * events_fts_pending into the full-text index a chunk at a time (INDEX), when idle or when the
 * backlog grows past its bound. Requests always go first: upkeep runs between them.
 */
import type { MessagePort } from 'node:worker_threads';
import type { Statement } from './db';
import { DROP_PENDING_SQL, MOVE_PENDING_SQL, PENDING_COUNT_SQL, PENDING_TOP_SQL } from './sql';
import type { WriterConnection } from './writer-connection';
import { CHECKPOINT, type CheckpointMessage, INDEX } from './writer-protocol';

/** The pages a commit writes besides its rows: about ten index, table and counter pages. */
const COMMIT_OVERHEAD_BYTES = 10 * 4096;
/** About what a row of text moved into the index adds to the WAL. */
const INDEXED_ROW_BYTES = 512;

/** The writer's checkpoints and text indexing, between its requests. */
export class WriterUpkeep {
  /** Bytes written since the last checkpoint (a measure of the WAL's growth). */
  private walBytes = 0;
  /**
   * What went into the WAL since it last went back to its start (a checkpoint that copied every
   * frame, with no commit after it before the next commit's restart; bounded by hardBytes).
   */
  private sinceRestart = 0;
  /** Whether the checkpointer is at work. */
  private checkpointing = false;
  /** Rows of text waiting for the index (about: another process may index some too). */
  private pending: number;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly pendingTop: Statement;
  private readonly moveText: Statement;
  private readonly dropPending: Statement;

  constructor(
    private readonly conn: WriterConnection,
    /** The channel to the checkpointer; without one, the writer checkpoints alone. */
    private readonly port: MessagePort | undefined,
  ) {
    const db = conn.db;
    this.pendingTop = db.prepare(PENDING_TOP_SQL);
    this.moveText = db.prepare(MOVE_PENDING_SQL);
    this.dropPending = db.prepare(DROP_PENDING_SQL);
    this.pending = Number(db.prepare(PENDING_COUNT_SQL).get()?.n ?? 0);
    port?.on('message', () => this.checkpointerDone());
    port?.unref();
    if (this.pending > 0) this.idleTimer = setTimeout(() => this.idle(), CHECKPOINT.idleMs);
  }

  /**
   * After a commit of `bytes` with `texts` rows of text waiting: asks the checkpointer for a pass
   * past maxBytes, indexes and copies at once past the bounds, and idles again from now.
   */
  wrote(bytes: number, texts: number): void {
    this.walBytes += bytes + COMMIT_OVERHEAD_BYTES;
    this.sinceRestart += bytes + COMMIT_OVERHEAD_BYTES;
    this.pending += texts;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.walBytes >= CHECKPOINT.maxBytes && this.port && !this.checkpointing) {
      // Beside the commits, on the checkpointer's thread; what is written meanwhile counts
      // toward the next one.
      this.checkpointing = true;
      this.walBytes = 0;
      this.ask('checkpoint');
    }
    const hard =
      this.sinceRestart >= CHECKPOINT.hardBytes || (!this.port && this.walBytes >= CHECKPOINT.maxBytes);
    if (this.pending > INDEX.maxPending || hard)
      setImmediate(() => {
        try {
          if (this.pending > INDEX.maxPending) this.indexChunk();
        } catch {
          // the idle moment tries again
        }
        if (hard) this.catchUp();
      });
    this.idleTimer = setTimeout(() => this.idle(), CHECKPOINT.idleMs);
  }

  /** Before the writer closes: no more upkeep, and the checkpointer closes too. */
  stop(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.ask('close');
  }

  private ask(message: CheckpointMessage): void {
    this.port?.postMessage(message);
  }

  /**
   * The checkpointer finished a pass. What was committed while it ran is copied by another pass
   * beside the commits, until so little is left that the writer's own pass is a short one (each
   * pass is shorter: copying outruns what the commits add).
   */
  private checkpointerDone(): void {
    if (this.walBytes > CHECKPOINT.catchUpBytes && this.sinceRestart < CHECKPOINT.hardBytes) {
      this.walBytes = 0;
      this.ask('checkpoint');
      return;
    }
    this.checkpointing = false;
    this.catchUp();
  }

  /**
   * The writer's own PASSIVE checkpoint, between commits: after the checkpointer's, it copies only
   * the frames committed while that one ran, so the WAL is whole in the database and the next
   * commit starts it over (with no commit beside it, nothing stops it from copying every frame).
   */
  private catchUp(): void {
    try {
      const [r] = this.conn.db.pragma('wal_checkpoint(PASSIVE)') as
        { busy: number; log: number; checkpointed: number }[] | [];
      this.walBytes = 0;
      if (r && r.busy === 0 && r.log === r.checkpointed) this.sinceRestart = 0;
    } catch {
      // a reader or another writer holds the WAL: the next one tries again
    }
  }

  /**
   * Idle: TRUNCATE (the WAL file goes back to nothing, so a burst leaves no large file behind),
   * without waiting for a reader (busy_timeout 0: a reader's snapshot makes it a partial one).
   * Under load the checkpointer and catchUp do it (CHECKPOINT).
   */
  private checkpointIdle(): void {
    if (this.walBytes === 0 && this.sinceRestart === 0) return;
    try {
      this.conn.withoutWaiting(() => this.conn.db.pragma('wal_checkpoint(TRUNCATE)'));
      this.walBytes = 0;
      this.sinceRestart = 0;
    } catch {
      // a reader or another writer holds the WAL: the next idle moment tries again
    }
  }

  /** Moves the oldest chunk of pending text into the index: its rows leave the scan for the index in one transaction. */
  private indexChunk(): void {
    // Derived data: if lost in a power cut, it is still pending (the transaction is atomic).
    this.conn.setSync('NORMAL');
    let moved = 0;
    this.conn.inTransaction(() => {
      const top = this.pendingTop.get(INDEX.chunk);
      if (!top || top.s === null) return;
      this.moveText.run(top.s);
      this.dropPending.run(top.s);
      moved = Number(top.n);
      this.walBytes += moved * INDEXED_ROW_BYTES;
    });
    this.pending = moved < INDEX.chunk ? 0 : Math.max(0, this.pending - moved);
  }

  /** Idle: a chunk of text into the index (then the next at once), or else a checkpoint. */
  private idle(): void {
    this.idleTimer = null;
    if (this.pending > 0) {
      try {
        this.indexChunk();
      } catch {
        // busy or failing: the next idle moment tries again
        this.idleTimer = setTimeout(() => this.idle(), CHECKPOINT.idleMs);
        return;
      }
      this.idleTimer = setTimeout(() => this.idle(), 0);
      return;
    }
    this.checkpointIdle();
  }
}
