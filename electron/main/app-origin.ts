/**
 * Which page the desktop app trusts: its own renderer at `app://console/`, or, in development
 * only, the Vite dev server named by VITE_DEV_SERVER_URL. Everything that decides whether to
 * answer a page (IPC sender checks, event forwarding) asks this one policy.
 */

export const APP_SCHEME = 'app';
export const APP_HOST = 'console';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

export interface OriginPolicy {
  /** The URL the window loads. */
  readonly entryUrl: string;
  /** The dev server's origin when one is trusted, else null. */
  readonly devOrigin: string | null;
  /** Whether a frame at `url` is the app's own renderer. */
  isTrusted(url: string | null | undefined): boolean;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The dev server's origin, accepted only as plain http on a loopback host: the variable changes
 * which page gets the whole ConsoleApi, so it must not be able to point at the network.
 */
export function devServerOrigin(raw: string | undefined): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * @param devServerUrl VITE_DEV_SERVER_URL; main passes it only when the app is not packaged.
 * @example
 * const policy = createOriginPolicy();
 * policy.isTrusted('app://console/index.html'); // true
 * policy.isTrusted('https://evil.example/');    // false
 */
export function createOriginPolicy(devServerUrl?: string): OriginPolicy {
  const devOrigin = devServerOrigin(devServerUrl);
  return {
    entryUrl: devOrigin && devServerUrl ? devServerUrl : APP_ENTRY_URL,
    devOrigin,
    isTrusted(raw) {
      if (!raw) return false;
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return false;
      }
      // `app:` is not a WHATWG special scheme, so URL#origin is "null" for it in Node: compare
      // the parts. A port or user-info makes it another origin.
      if (url.protocol === `${APP_SCHEME}:`) {
        return url.host === APP_HOST && url.username === '' && url.password === '';
      }
      return devOrigin !== null && url.origin === devOrigin;
    },
  };
}
