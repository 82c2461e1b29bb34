// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY, takeAccessToken } from '../../../renderer/api/access-token';

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
      },
      replaceUrl: (url: string) => void replaced.push(url),
    },
  };
}

describe('takeAccessToken', () => {
  it('takes ?token= from the URL, stores it for the tab and removes it from the address bar', () => {
    const t = env('http://127.0.0.1:7300/?token=abc123&x=1#/inspector');
    expect(takeAccessToken(t.env)).toBe('abc123');
    expect(t.storage.get(TOKEN_STORAGE_KEY)).toBe('abc123');
    expect(t.replaced).toEqual(['/?x=1#/inspector']);
  });

  it('falls back to the stored token after a reload', () => {
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
  });
});
