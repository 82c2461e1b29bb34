/**
 * The delivery engine (issue 27 item 1): a notification delivered the way the service delivers
 * it. Each delivery is a record in the profile database (store.ts) with every attempt; its first
 * attempt goes at once, the next ones on the ladder (ladder.ts) through one scheduler
 * (scheduler.ts); after a restart, the deliveries still on their ladder resume where they were.
 * Faults (issue 27 item 2) ride on a delivery: `duplicates` copies of the same body (spaced
 * 200 ms or all at once), `lost_ack` on the first attempt, `timeout_ms`.
 *
 * Reused by the sandbox (sandbox/engine.ts) and by anything else that must deliver like the
 * service (issue 28's scenarios): {@link DeliveryEngine.open} on a profile, {@link
 * DeliveryEngine.start} per notification, {@link DeliveryEngine.get}/{@link DeliveryEngine.list},
 * {@link DeliveryEngine.close}.
 *
 * Threat model: the URL comes from a counterparty the engineer onboarded; the bank's answers are
 * untrusted and bounded (attempt.ts). A flood of notify requests costs one row and one heap
 * entry each; finished deliveries are capped in the database (store/sql.ts DELIVERIES_KEPT) and in
 * memory (KEPT_IN_MEMORY).
 */
import { randomUUID } from 'node:crypto';
import {
  DELIVERIES_LIST_MAX,
  DUPLICATE_SPACING_MS,
  type Delivery,
  type DeliveriesInput,
  type DeliveryFaults,
  type Ladder,
} from '../../../contract/schemas/delivery';
import { PendingSet } from '../../common';
import { attemptRecord, sendAttempt, type AttemptOutcome } from './attempt';
import { attemptTimeoutMs, nextStep, type LadderSettings } from './ladder';
import { DeliveryScheduler } from './scheduler';
import { DeliveryStore, type StoredDelivery } from './store';

/** Finished deliveries kept in memory for GET and the list (older ones are read from the database). */
const KEPT_IN_MEMORY = 2000;

export interface DeliveryEngineOptions {
  /** The profile folder: deliveries live in its database. */
  dataDir: string;
  /** The ladder's numbers, read at each step (the sandbox's settings). */
  settings: () => LadderSettings;
  /** `--time-scale F` (0 < F ≤ 1): multiplies every wait and timeout. Default 1. */
  timeScale?: number;
  now?: () => number;
  /** After every change of a delivery (an attempt recorded, a state reached). */
  onChange?: (delivery: Delivery) => void;
  /** When a delivery escalates (its ladder ran out). */
  onEscalated?: (delivery: Delivery) => void;
  /** A problem worth a notice (a row that could not be read or written). */
  onProblem?: (message: string) => void;
}

/** One notification to deliver. */
export interface DeliverySpec {
  counterparty_guid: string;
  transaction_id: string;
  event: Delivery['event'];
  url: string;
  /** The exact body (a valid one, or a malformed one the bank must refuse). */
  body: string;
  ladder?: Ladder;
  faults?: DeliveryFaults;
}

/** What `start` answers: the delivery after its first attempt, and that attempt's outcome. */
export interface Started {
  delivery: Delivery;
  first: AttemptOutcome;
}

const publicOf = ({ body: _body, ...rest }: StoredDelivery): Delivery => structuredClone(rest);

export class DeliveryEngine {
  private readonly active = new Map<string, StoredDelivery>();
  private readonly finished = new Map<string, StoredDelivery>();
  private readonly inFlight = new PendingSet();
  private readonly scheduler: DeliveryScheduler;
  private readonly now: () => number;
  private readonly timeScale: number;
  private closed = false;

  private constructor(
    private readonly store: DeliveryStore,
    private readonly options: DeliveryEngineOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.timeScale = options.timeScale ?? 1;
    this.scheduler = new DeliveryScheduler(this.now, (id, planned) => this.due(id, planned));
  }

  /**
   * Opens the deliveries of a profile and resumes those still on their ladder (an attempt that
   * was due while the process was down goes at once).
   *
   * @example
   * const deliveries = DeliveryEngine.open({ dataDir, settings: () => sandboxSettings, timeScale: 0.01 });
   * const { delivery } = await deliveries.start({ counterparty_guid, transaction_id, event: 'pay-in', url, body });
   */
  static open(options: DeliveryEngineOptions): DeliveryEngine {
    const engine = new DeliveryEngine(DeliveryStore.open(options.dataDir), options);
    const { active, finished, damaged } = engine.store.load(KEPT_IN_MEMORY);
    for (const d of finished.reverse()) engine.finished.set(d.delivery_id, d);
    for (const d of active) {
      engine.active.set(d.delivery_id, d);
      engine.scheduler.schedule(d.delivery_id, d.next_at === null ? engine.now() : Date.parse(d.next_at));
    }
    if (damaged.length > 0) {
      options.onProblem?.(
        `${damaged.length} stored notification deliveries could not be read and were left as they are (${damaged.slice(0, 3).join(', ')}${damaged.length > 3 ? ', …' : ''})`,
      );
    }
    return engine;
  }

  /** How many deliveries are on their ladder now. */
  get activeCount(): number {
    return this.active.size;
  }

  /**
   * Creates a delivery, stores it, sends its first attempt (and its duplicate copies) and
   * answers once that first attempt is judged; the ladder goes on from there.
   */
  async start(spec: DeliverySpec): Promise<Started> {
    const nowMs = this.now();
    const d: StoredDelivery = {
      delivery_id: randomUUID(),
      counterparty_guid: spec.counterparty_guid,
      transaction_id: spec.transaction_id,
      event: spec.event,
      url: spec.url,
      state: 'delivering',
      next_at: new Date(nowMs).toISOString(),
      attempts: [],
      created_at: new Date(nowMs).toISOString(),
      ladder: spec.ladder ?? 'service',
      faults: spec.faults ?? {},
      body: spec.body,
    };
    this.active.set(d.delivery_id, d);
    // Stored before the first attempt: a crash during it resumes the delivery.
    await this.save(d, true);
    this.sendCopies(d, nowMs);
    const first = await this.track(this.attempt(d, nowMs));
    return { delivery: publicOf(d), first };
  }

  /** One delivery by id, or null. */
  get(id: string): Delivery | null {
    const d = this.active.get(id) ?? this.finished.get(id) ?? this.store.byId(id);
    return d ? publicOf(d) : null;
  }

  /** The newest deliveries (at most 500), newest first, filtered. */
  list(filter: DeliveriesInput = {}): Delivery[] {
    const tx = filter.transaction_id?.toLowerCase();
    const all = [...this.active.values(), ...this.finished.values()]
      .filter(
        (d) =>
          (filter.counterparty_guid === undefined ||
            d.counterparty_guid === filter.counterparty_guid.toLowerCase()) &&
          (filter.state === undefined || d.state === filter.state) &&
          (tx === undefined || d.transaction_id.toLowerCase() === tx),
      )
      .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
    return all.slice(0, DELIVERIES_LIST_MAX).map(publicOf);
  }

  /** Stops the scheduler, waits for attempts in flight (each bounded by its timeout) and writes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.scheduler.close();
    await this.inFlight.settle();
    await this.store.close();
  }

  // ------------------------------------------------------------------------ the ladder

  private due(id: string, plannedAtMs: number): void {
    const d = this.active.get(id);
    if (!d || this.closed) return;
    void this.track(this.attempt(d, plannedAtMs));
  }

  /** One attempt of the ladder: send, record, decide what follows, store, announce. */
  private async attempt(d: StoredDelivery, plannedAtMs: number): Promise<AttemptOutcome> {
    const n = d.attempts.filter((a) => !a.copy).length + 1;
    const settings = this.options.settings();
    const outcome = await sendAttempt(
      {
        url: d.url,
        body: d.body,
        timeoutMs: attemptTimeoutMs(settings, d.faults.timeout_ms, this.timeScale),
        dropOnStatus: n === 1 && d.faults.lost_ack === true,
      },
      this.now,
    );
    d.attempts.push(attemptRecord(n, outcome, { plannedAtMs }));
    const next = nextStep(settings, d.ladder, n, outcome.status, this.now(), this.timeScale);
    d.state = next.state;
    d.next_at = next.nextAtMs === null ? null : new Date(next.nextAtMs).toISOString();
    if (next.state === 'delivering') {
      this.scheduler.schedule(d.delivery_id, next.nextAtMs);
    } else {
      this.active.delete(d.delivery_id);
      this.keepFinished(d);
    }
    // Announced as soon as it is decided (a reader may already see the state in memory).
    if (next.state === 'escalated') this.options.onEscalated?.(publicOf(d));
    await this.save(d, false);
    return outcome;
  }

  /** `duplicates`: N more copies of the same body, all at once or spaced 200 ms from the first. */
  private sendCopies(d: StoredDelivery, startMs: number): void {
    const copies = d.faults.duplicates ?? 0;
    for (let k = 1; k <= copies; k += 1) {
      const wait = d.faults.concurrent ? 0 : k * DUPLICATE_SPACING_MS;
      const send = async () => {
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (this.closed) return;
        const settings = this.options.settings();
        const outcome = await sendAttempt(
          {
            url: d.url,
            body: d.body,
            timeoutMs: attemptTimeoutMs(settings, d.faults.timeout_ms, this.timeScale),
          },
          this.now,
        );
        d.attempts.push(attemptRecord(1, outcome, { plannedAtMs: startMs + wait, copy: true }));
        await this.save(d, false);
      };
      void this.track(send());
    }
  }

  private keepFinished(d: StoredDelivery): void {
    this.finished.set(d.delivery_id, d);
    if (this.finished.size > KEPT_IN_MEMORY) {
      const oldest = this.finished.keys().next().value;
      if (oldest !== undefined) this.finished.delete(oldest);
    }
  }

  private async save(d: StoredDelivery, isNew: boolean): Promise<void> {
    try {
      await this.store.save(d, isNew);
    } catch (err) {
      this.options.onProblem?.(
        `notification delivery ${d.delivery_id} could not be stored: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    this.options.onChange?.(publicOf(d));
  }

  private track<T>(p: Promise<T>): Promise<T> {
    return this.inFlight.track(p);
  }
}
