/**
 * The one place the desktop app hands a URL to the operating system (STYLE.md 5).
 *
 * Threat model: the URL comes from page content (a link with target=_blank, window.open). A
 * compromised page must not be able to launch local programs through `file:`, custom URL
 * handlers (`ms-msdt:`, `smb:`…) or `javascript:`, so only http and https URLs leave the app,
 * re-serialised from the parsed URL. The page never sees this function.
 */
import type { Shell } from 'electron';

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);

/** The http(s) URL to hand to the OS, or null when `raw` must not leave the app. */
export function externalUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  return ALLOWED_PROTOCOLS.has(url.protocol) ? url.href : null;
}

/**
 * Opens an http(s) URL in the user's browser; anything else is dropped. Returns whether the
 * URL was handed over.
 *
 * @example
 * openExternalUrl(shell, 'https://example.com/docs'); // true
 * openExternalUrl(shell, 'file:///etc/passwd');       // false, nothing opens
 */
export function openExternalUrl(shell: Pick<Shell, 'openExternal'>, raw: string): boolean {
  const href = externalUrl(raw);
  if (href === null) return false;
  // Audit: reviewed; this is the app's only openExternal and it passes http(s) URLs only.
  const opening = shell.openExternal(href); // eng-disable OPEN_EXTERNAL_JS_CHECK
  opening.catch((err: unknown) => {
    console.warn(`dets-console: could not open ${href}: ${err instanceof Error ? err.message : String(err)}`);
  });
  return true;
}
