/**
 * The browser-mode access token (electron/contract/transport.ts): `dets-console serve` prints a
 * URL carrying `?token=…`. On first load we keep the token in sessionStorage (it survives a
 * reload of this tab, not a new tab or a browser restart) and drop it from the address bar, so
 * it does not linger in history, screenshots or a copied URL.
 */
import { TRANSPORT } from '../../electron/contract';

export const TOKEN_STORAGE_KEY = 'dets-console.access-token';

export interface TokenLocation {
  href: string;
}

export interface TokenEnv {
  location: TokenLocation;
  storage: Pick<Storage, 'getItem' | 'setItem'>;
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
        env.storage.setItem(TOKEN_STORAGE_KEY, trimmed);
      } catch {
        // Storage disabled: the token still works for this page's lifetime.
      }
      return trimmed;
    }
  }
  try {
    const stored = env.storage.getItem(TOKEN_STORAGE_KEY);
    return stored && stored.trim() !== '' ? stored : null;
  } catch {
    return null;
  }
}
