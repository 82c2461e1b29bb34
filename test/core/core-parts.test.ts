/**
 * The composition root's small parts, which were closures inside createConsoleCore: a lazy
 * factory builds once, an async one does not cache a failure (a fixed state file is retried
 * without a restart), held notices are told once, listeners keep what is true now.
 */
import { describe, expect, it } from 'vitest';
import { JWKS_PATH } from '../../electron/core/common';
import { lazy, lazyAsync } from '../../electron/core/core-lazy';
import { Listeners } from '../../electron/core/core-listeners';
import { HeldNotices } from '../../electron/core/core-profile';
import { EventHub } from '../../electron/core/event-hub';

describe('lazy factories', () => {
  it('lazy builds on first use, once', () => {
    let made = 0;
    const get = lazy(() => ({ n: ++made }));
    expect(made).toBe(0);
    expect(get()).toBe(get());
    expect(made).toBe(1);
  });

  it('lazyAsync shares one promise, forgets a failure, and says whether it started', async () => {
    let calls = 0;
    const get = lazyAsync(async () => {
      calls += 1;
      if (calls === 1) throw new Error('state file damaged');
      return calls;
    });
    expect(get.started()).toBeUndefined();
    await expect(get()).rejects.toThrow('state file damaged');
    expect(get.started()).toBeUndefined();
    const [a, b] = await Promise.all([get(), get()]);
    expect([a, b, calls]).toEqual([2, 2, 2]);
    await expect(get.started()).resolves.toBe(2);
  });
});

describe('HeldNotices', () => {
  it('emits each held notice once, on the next flush', () => {
    const events = new EventHub();
    const seen: string[] = [];
    events.on('app.noticed', (n) => seen.push(n.message));
    const notices = new HeldNotices();
    notices.hold({ at: '2026-01-01T00:00:00.000Z', level: 'warning', message: 'recovered' });
    notices.flush(events);
    notices.flush(events);
    expect(seen).toEqual(['recovered']);
  });
});

describe('Listeners', () => {
  it('merges URLs, hands out copies, and derives the sandbox JWKS URL only while it listens', () => {
    const listeners = new Listeners();
    expect(listeners.sandboxJwksUrl()).toBeNull();
    listeners.set({ sandbox: 'http://127.0.0.1:4100' });
    listeners.bankListening({ url: 'http://127.0.0.1:4200', host: '127.0.0.1', port: 4200 });
    const copy = listeners.urls();
    copy.bank = 'changed';
    expect(listeners.urls()).toEqual({ sandbox: 'http://127.0.0.1:4100', bank: 'http://127.0.0.1:4200' });
    expect(listeners.sandboxJwksUrl()).toBe(`http://127.0.0.1:4100${JWKS_PATH}`);
    expect(listeners.bank).toEqual({ url: 'http://127.0.0.1:4200', host: '127.0.0.1', port: 4200 });
  });
});
