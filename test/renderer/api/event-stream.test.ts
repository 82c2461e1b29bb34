// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { createEventStream, eventsUrl } from '../../../renderer/api/event-stream';

/** A scripted EventSource: Node and jsdom have none, and the states are what we test. */
class ScriptedEventSource {
  static instances: ScriptedEventSource[] = [];
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSED = 2;
  readyState = 0;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  listeners = new Map<string, (msg: { data: string }) => void>();
  constructor(readonly url: string) {
    ScriptedEventSource.instances.push(this);
  }
  addEventListener(name: string, fn: (msg: { data: string }) => void) {
    this.listeners.set(name, fn);
  }
  close() {
    this.readyState = 2;
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  drop(permanently: boolean) {
    this.readyState = permanently ? 2 : 0;
    this.onerror?.();
  }
  emit(name: string, data: string) {
    this.listeners.get(name)?.({ data });
  }
}

function setup() {
  ScriptedEventSource.instances = [];
  const timers: Array<{ fn: () => void; ms: number }> = [];
  const stream = createEventStream({
    url: eventsUrl('http://127.0.0.1:7300', 'tok en'),
    EventSource: ScriptedEventSource as unknown as new (url: string) => EventSource,
    setTimer: (fn, ms) => timers.push({ fn, ms }),
    clearTimer: () => undefined,
  });
  return { stream, timers, current: () => ScriptedEventSource.instances.at(-1)! };
}

describe('event stream', () => {
  it('opens /api/events with the token in the query and reports connected once open', () => {
    const { stream, current } = setup();
    expect(current().url).toBe('http://127.0.0.1:7300/api/events?token=tok+en');
    expect(stream.getSnapshot().status).toBe('connecting');
    current().open();
    expect(stream.getSnapshot().status).toBe('connected');
  });

  it('fans named events out to subscribers as parsed JSON and drops malformed ones', () => {
    const { stream, current } = setup();
    const got: unknown[] = [];
    const off = stream.on('app.noticed', (p) => got.push(p));
    current().open();
    current().emit('app.noticed', '{"at":"2025-01-01T00:00:00Z","level":"info","message":"hi"}');
    current().emit('app.noticed', '{not json');
    off();
    current().emit('app.noticed', '{"message":"after unsubscribe"}');
    expect(got).toEqual([{ at: '2025-01-01T00:00:00Z', level: 'info', message: 'hi' }]);
  });

  it('shows reconnecting while the browser retries, and reopens a refused stream itself with backoff', () => {
    const { stream, timers, current } = setup();
    const seen: string[] = [];
    stream.subscribe(() => seen.push(stream.getSnapshot().status));
    current().open();
    current().drop(false);
    expect(stream.getSnapshot().status).toBe('reconnecting');
    current().open();
    const first = current();
    first.drop(true);
    expect(stream.getSnapshot().status).toBe('disconnected');
    expect(timers).toHaveLength(1);
    timers[0]!.fn();
    expect(current()).not.toBe(first);
    expect(stream.getSnapshot().status).toBe('reconnecting');
    current().drop(true);
    expect(timers[1]!.ms).toBeGreaterThan(timers[0]!.ms);
    timers[1]!.fn();
    current().open();
    expect(stream.getSnapshot()).toMatchObject({ status: 'connected', attempts: 0 });
    expect(seen).toEqual([
      'connected',
      'reconnecting',
      'connected',
      'disconnected',
      'reconnecting',
      'disconnected',
      'reconnecting',
      'connected',
    ]);
  });

  it('close() stops everything', () => {
    const { stream, current } = setup();
    current().open();
    stream.close();
    expect(current().readyState).toBe(2);
    expect(stream.getSnapshot().status).toBe('disconnected');
  });
});
