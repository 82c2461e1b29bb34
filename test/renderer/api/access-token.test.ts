// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import {
  TOKEN_STORAGE_KEY,
  forgetAccessToken,
  onNewAccessToken,
  takeAccessToken,
} from '../../../renderer/api/access-token';

function env(href: string, stored: string | null = null) {
  const storage = new Map<string, string>(stored === null ? [] : [[TOKEN_STORAGE_KEY, stored]]);
  const replaced: string[] = [];
  return {
    replaced,
    storage,
    env: {
      location: { href },
      storage: {
        getItem: (k: string) => storage.get(k) ?? null,
        setItem: (k: string, v: string) => void storage.set(k, v),
        removeItem: (k: string) => void storage.delete(k),
      },
      replaceUrl: (url: string) => void replaced.push(url),
    },
  };
}

afterEach(() => localStorage.clear());

describe('takeAccessToken', () => {
  it('takes ?token= from the URL, stores it for the origin and removes it from the address bar', () => {
    const t = env('http://127.0.0.1:7300/?token=abc123&x=1#/inspector');
    expect(takeAccessToken(t.env)).toBe('abc123');
    expect(t.storage.get(TOKEN_STORAGE_KEY)).toBe('abc123');
    expect(t.replaced).toEqual(['/?x=1#/inspector']);
  });

  it('falls back to the stored token in a later tab or after a reload', () => {
    const t = env('http://127.0.0.1:7300/#/inspector', 'kept');
    expect(takeAccessToken(t.env)).toBe('kept');
    expect(t.replaced).toEqual([]);
  });

  it('prefers a new URL token over a stored one (the host restarted)', () => {
    const t = env('http://127.0.0.1:7300/?token=new', 'old');
    expect(takeAccessToken(t.env)).toBe('new');
    expect(t.storage.get(TOKEN_STORAGE_KEY)).toBe('new');
  });

  it('returns null when there is none', () => {
    expect(takeAccessToken(env('http://127.0.0.1:7300/').env)).toBeNull();
    expect(takeAccessToken(env('http://127.0.0.1:7300/?token=').env)).toBeNull();
    expect(takeAccessToken(env('http://127.0.0.1:7300/', '  ').env)).toBeNull();
  });

  it('works for this page alone when the browser denies storage', () => {
    const denied = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('SecurityError');
      },
      removeItem: () => undefined,
    };
    const base = env('http://127.0.0.1:7300/?token=only-here').env;
    expect(takeAccessToken({ ...base, storage: denied })).toBe('only-here');
    expect(takeAccessToken({ ...env('http://127.0.0.1:7300/').env, storage: denied })).toBeNull();
    expect(takeAccessToken({ ...env('http://127.0.0.1:7300/').env, storage: null })).toBeNull();
  });
});

describe('forgetAccessToken', () => {
  it('removes the refused token', () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, 'stale');
    forgetAccessToken(localStorage, 'stale');
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull();
  });

  it('keeps a newer token another tab stored meanwhile', () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, 'fresh');
    forgetAccessToken(localStorage, 'stale');
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).toBe('fresh');
  });
});

describe('onNewAccessToken', () => {
  it('hears a token another tab stored, and nothing else', () => {
    const heard: string[] = [];
    const off = onNewAccessToken(window, (t) => heard.push(t));
    const fire = (key: string | null, newValue: string | null) =>
      window.dispatchEvent(new StorageEvent('storage', { key, newValue }));
    fire('other-key', 'x');
    fire(TOKEN_STORAGE_KEY, null); // removed (refused) in another tab
    fire(TOKEN_STORAGE_KEY, 'new-token');
    off();
    fire(TOKEN_STORAGE_KEY, 'after-unsubscribe');
    expect(heard).toEqual(['new-token']);
  });
});
