/**
 * The two ways a live list takes arrivals at 2,000 a second (issue 13 item 9) without a render or
 * a request per event: a frame batcher (what arrived is handed over in one batch on a scheduled
 * animation frame, so a burst costs one render however many events it holds; pacedFrames spaces
 * those frames) and a serial refresher (one request in flight, repeated requests folded into one,
 * at most one start per `minGapMs`, so a filtered list asking the store "what matched since" never
 * queues queries behind the writes). Plain functions over injected timers, so the behaviour is
 * tested without a browser.
 */

export interface FrameBatcher<T> {
  push(item: T): void;
  /** Drops what is pending; nothing is handed over after this. */
  cancel(): void;
}

/**
 * Items pushed are handed to `flush` on the next `schedule`d tick, oldest first, in one array.
 * Past `maxPending` only the newest are kept (a hidden page gets no frames; a list shows at most
 * that many anyway).
 */
export function createFrameBatcher<T>(opts: {
  flush: (batch: T[]) => void;
  maxPending: number;
  schedule: (fn: () => void) => void;
}): FrameBatcher<T> {
  let pending: T[] = [];
  let scheduled = false;
  let cancelled = false;
  const run = () => {
    scheduled = false;
    if (cancelled || pending.length === 0) return;
    const batch = pending;
    pending = [];
    opts.flush(batch);
  };
  return {
    push(item) {
      if (cancelled) return;
      pending.push(item);
      if (pending.length > opts.maxPending) pending.splice(0, pending.length - opts.maxPending);
      if (scheduled) return;
      scheduled = true;
      opts.schedule(run);
    },
    cancel() {
      cancelled = true;
      pending = [];
    },
  };
}

export interface SerialRefresher {
  /** Asks for a run: now if idle and the gap has passed, else once after the current one. */
  request(): void;
  cancel(): void;
}

/**
 * Runs `run` on request, one at a time: requests made while a run is in flight or waiting become
 * one more run, started no sooner than `minGapMs` after the previous start. A run resolving to
 * `'again'` (its list is still loading) asks for another run itself.
 */
export function createSerialRefresher(opts: {
  run: () => Promise<'done' | 'again'>;
  minGapMs: number;
  now: () => number;
  setTimer: (fn: () => void, ms: number) => unknown;
  clearTimer: (handle: unknown) => void;
}): SerialRefresher {
  let state: 'idle' | 'waiting' | 'running' = 'idle';
  let again = false;
  let lastStart = -Infinity;
  let timer: unknown = null;
  let cancelled = false;

  const start = () => {
    timer = null;
    if (cancelled) return;
    state = 'running';
    again = false;
    lastStart = opts.now();
    void opts
      .run()
      .catch(() => 'done' as const)
      .then((result) => {
        state = 'idle';
        if (result === 'again') again = true;
        if (again) {
          again = false;
          request();
        }
      });
  };

  const request = () => {
    if (cancelled) return;
    if (state === 'running') {
      again = true;
      return;
    }
    if (state === 'waiting') return;
    const wait = lastStart + opts.minGapMs - opts.now();
    if (wait <= 0) start();
    else {
      state = 'waiting';
      timer = opts.setTimer(start, wait);
    }
  };

  return {
    request,
    cancel() {
      cancelled = true;
      if (timer !== null) opts.clearTimer(timer);
      timer = null;
    },
  };
}

/**
 * A `schedule` for createFrameBatcher: the next animation frame at least `minGapMs` after the last
 * run it scheduled began. At 2,000 arrivals a second a list re-laid out on every frame spends the
 * page's whole budget on rows nobody can read at that pace; ten times a second it stays live to
 * the eye and leaves most frames free (issue 13 item 9).
 */
export function pacedFrames(opts: {
  minGapMs: number;
  frame: (fn: () => void) => void;
  now: () => number;
  setTimer: (fn: () => void, ms: number) => unknown;
}): (fn: () => void) => void {
  let last = -Infinity;
  return (fn) => {
    const run = () => {
      last = opts.now();
      fn();
    };
    const wait = last + opts.minGapMs - opts.now();
    if (wait <= 0) opts.frame(run);
    else opts.setTimer(() => opts.frame(run), wait);
  };
}
