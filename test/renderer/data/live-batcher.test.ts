import { describe, expect, it } from 'vitest';
import { createFrameBatcher, createSerialRefresher, pacedFrames } from '../../../renderer/data/live-batcher';

/** A hand-driven frame clock: `tick()` runs what was scheduled for the next frame. */
function frames() {
  let queued: Array<() => void> = [];
  return {
    schedule: (fn: () => void) => queued.push(fn),
    get waiting() {
      return queued.length;
    },
    tick() {
      const run = queued;
      queued = [];
      for (const fn of run) fn();
    },
  };
}

/** A hand-driven timer clock. */
function clock() {
  let now = 0;
  let timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let ids = 0;
  return {
    now: () => now,
    setTimer: (fn: () => void, ms: number) => {
      const id = ++ids;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimer: (h: unknown) => {
      timers = timers.filter((t) => t.id !== h);
    },
    advance(ms: number) {
      now += ms;
      const due = timers.filter((t) => t.at <= now);
      timers = timers.filter((t) => t.at > now);
      for (const t of due) t.fn();
    },
    get pending() {
      return timers.length;
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

/** A batcher on a hand-driven frame clock, recording what it hands over. */
function batcher(maxPending: number) {
  const f = frames();
  const batches: number[][] = [];
  const b = createFrameBatcher<number>({ flush: (x) => batches.push(x), maxPending, schedule: f.schedule });
  return { f, batches, b };
}

describe('createFrameBatcher', () => {
  it('hands a burst over once, oldest first, on the next frame', () => {
    const { f, batches, b } = batcher(100);
    for (let i = 0; i < 50; i++) b.push(i);
    expect(f.waiting).toBe(1);
    expect(batches).toEqual([]);
    f.tick();
    expect(batches).toEqual([Array.from({ length: 50 }, (_, i) => i)]);
    b.push(50);
    f.tick();
    expect(batches[1]).toEqual([50]);
  });

  it('keeps only the newest maxPending while no frame comes (a hidden page)', () => {
    const { f, batches, b } = batcher(3);
    for (let i = 0; i < 10; i++) b.push(i);
    f.tick();
    expect(batches).toEqual([[7, 8, 9]]);
  });

  it('hands nothing over after cancel', () => {
    const { f, batches, b } = batcher(10);
    b.push(1);
    b.cancel();
    f.tick();
    b.push(2);
    f.tick();
    expect(batches).toEqual([]);
  });
});

describe('createSerialRefresher', () => {
  function setup(minGapMs: number, results: Array<'done' | 'again'> = []) {
    const c = clock();
    const resolvers: Array<(r: 'done' | 'again') => void> = [];
    let runs = 0;
    const r = createSerialRefresher({
      run: () => {
        runs += 1;
        return new Promise((resolve) => resolvers.push(resolve));
      },
      minGapMs,
      now: c.now,
      setTimer: c.setTimer,
      clearTimer: c.clearTimer,
    });
    return {
      c,
      r,
      get runs() {
        return runs;
      },
      finish: async (result: 'done' | 'again' = results.shift() ?? 'done') => {
        resolvers.shift()!(result);
        await settle();
      },
    };
  }

  it('runs at once when idle, folds requests made meanwhile into one more run after the gap', async () => {
    const s = setup(250);
    s.r.request();
    expect(s.runs).toBe(1);
    for (let i = 0; i < 40; i++) s.r.request();
    expect(s.runs).toBe(1);
    s.c.advance(30);
    await s.finish();
    // The second run waits until 250 ms after the first started.
    expect(s.runs).toBe(1);
    s.c.advance(219);
    expect(s.runs).toBe(1);
    s.c.advance(1);
    expect(s.runs).toBe(2);
    await s.finish();
    expect(s.c.pending).toBe(0);
  });

  it('runs again by itself when a run answers "again" (the list is still loading)', async () => {
    const s = setup(100);
    s.r.request();
    await s.finish('again');
    s.c.advance(100);
    expect(s.runs).toBe(2);
    await s.finish('done');
    s.c.advance(1000);
    expect(s.runs).toBe(2);
  });

  it('a failed run does not stop later ones', async () => {
    const c = clock();
    let runs = 0;
    const r = createSerialRefresher({
      run: () => {
        runs += 1;
        return Promise.reject(new Error('store busy'));
      },
      minGapMs: 0,
      now: c.now,
      setTimer: c.setTimer,
      clearTimer: c.clearTimer,
    });
    r.request();
    await settle();
    r.request();
    expect(runs).toBe(2);
  });

  it('starts nothing after cancel', async () => {
    const s = setup(250);
    s.r.request();
    s.r.request();
    await s.finish();
    s.r.cancel();
    s.c.advance(1000);
    expect(s.runs).toBe(1);
  });
});

describe('pacedFrames', () => {
  it('runs on the next frame, and the next run no sooner than the gap after the last began', () => {
    const f = frames();
    const c = clock();
    const schedule = pacedFrames({ minGapMs: 100, frame: f.schedule, now: c.now, setTimer: c.setTimer });
    const runs: number[] = [];
    schedule(() => runs.push(c.now()));
    expect(f.waiting).toBe(1);
    f.tick();
    expect(runs).toEqual([0]);
    c.advance(16);
    schedule(() => runs.push(c.now()));
    // Too soon: a timer first, then a frame.
    expect(f.waiting).toBe(0);
    c.advance(83);
    expect(f.waiting).toBe(0);
    c.advance(1);
    expect(f.waiting).toBe(1);
    f.tick();
    expect(runs).toEqual([0, 100]);
    c.advance(500);
    schedule(() => runs.push(c.now()));
    expect(f.waiting).toBe(1);
  });

  it('paces a frame batcher: a stream of arrivals is handed over in a few batches', () => {
    const f = frames();
    const c = clock();
    const batches: number[][] = [];
    const b = createFrameBatcher<number>({
      flush: (x) => batches.push(x),
      maxPending: 10_000,
      schedule: pacedFrames({ minGapMs: 100, frame: f.schedule, now: c.now, setTimer: c.setTimer }),
    });
    // 2,000 a second for one second, a frame every 16 ms.
    for (let ms = 0; ms < 1000; ms++) {
      b.push(2 * ms);
      b.push(2 * ms + 1);
      c.advance(1);
      if (ms % 16 === 15) f.tick();
    }
    c.advance(100);
    f.tick();
    expect(batches.flat()).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    expect(batches.length).toBeGreaterThanOrEqual(9);
    expect(batches.length).toBeLessThanOrEqual(11);
  });
});
