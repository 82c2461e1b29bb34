/**
 * The browser-mode access token (electron/contract/transport.ts): `dets-console serve` prints a
 * URL carrying `?token=…`. On first load we take it from the URL once, keep it in this origin's
 * localStorage and drop it from the address bar (history.replaceState), so it does not linger
 * in history, screenshots or a copied URL. Every request then sends it in the X-DETS-Token
 * header; no cookie is involved (DESIGN.md "Architecture").
 *
 * Why localStorage: it is scoped to the origin, port included, so two consoles on two ports keep
 * two tokens and no other local server can read either; and it is shared by every tab of that
 * origin, so a second tab (a nav link opened in a new tab) works without the link, even when the
 * first tab has been closed. sessionStorage is per tab: a second tab would need a handshake
 * (BroadcastChannel) with a first tab that is still open, and would fail when there is none,
 * for no gain in secrecy: Chromium keeps sessionStorage on disk for session restore too.
 *
 * A token from an older launch left in storage is refused by the host (401): the transport then
 * calls {@link forgetAccessToken} and the app shows the "open the link serve printed" page.
 */
import { TRANSPORT } from '../../electron/contract';

export const TOKEN_STORAGE_KEY = 'dets-console.access-token';

export interface TokenLocation {
  href: string;
}

export type TokenStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export interface TokenEnv {
  location: TokenLocation;
  /** The origin's localStorage; null when the browser denies it (the token then lives in this page only). */
  storage: TokenStorage | null;
  replaceUrl: (url: string) => void;
}

/** Returns the access token from the URL (then storage), or null when there is none. */
export function takeAccessToken(env: TokenEnv): string | null {
  const url = new URL(env.location.href);
  const fromUrl = url.searchParams.get(TRANSPORT.tokenQuery);
  if (fromUrl !== null) {
    url.searchParams.delete(TRANSPORT.tokenQuery);
    env.replaceUrl(url.pathname + url.search + url.hash);
    const trimmed = fromUrl.trim();
    if (trimmed !== '') {
      try {
        env.storage?.setItem(TOKEN_STORAGE_KEY, trimmed);
      } catch {
        // Storage full or disabled: the token still works for this page's lifetime.
      }
      return trimmed;
    }
  }
  try {
    const stored = env.storage?.getItem(TOKEN_STORAGE_KEY) ?? null;
    return stored && stored.trim() !== '' ? stored : null;
  } catch {
    return null;
  }
}

/**
 * Removes `token` from storage after the host refused it, unless another tab has meanwhile
 * stored a newer one (the access link of a restarted host opened there): that one stays.
 */
export function forgetAccessToken(storage: TokenStorage | null, token: string): void {
  try {
    if (storage?.getItem(TOKEN_STORAGE_KEY) === token) storage.removeItem(TOKEN_STORAGE_KEY);
  } catch {
    // Storage disabled: there is nothing to forget.
  }
}

/**
 * Calls `listener` when another tab of this origin stores a new token (the `storage` event fires
 * in every other tab), so a page showing "open the access link" can come back by itself once
 * the link has been opened elsewhere. Returns the unsubscribe function.
 */
export function onNewAccessToken(
  target: Pick<Window, 'addEventListener' | 'removeEventListener'>,
  listener: (token: string) => void,
): () => void {
  const handler = (event: StorageEvent) => {
    if (event.key === TOKEN_STORAGE_KEY && event.newValue && event.newValue.trim() !== '') {
      listener(event.newValue);
    }
  };
  target.addEventListener('storage', handler);
  return () => target.removeEventListener('storage', handler);
}
