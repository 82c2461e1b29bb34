import { useSyncExternalStore } from 'react';

/**
 * Where the app is and how to go elsewhere: hash routing (`#/inspector`, `#/reference/4.4`),
 * which works the same from `app://console/` and from the loopback host. Pages import this, never
 * the page table (routes.ts), which imports the pages: navigation stays below them, so nothing
 * loops back (issue 25 item 3).
 */

/** Every page's id, in nav order; routes.ts gives each its label, summary and component. */
export type PageId =
  | 'walkthrough'
  | 'inspector'
  | 'keys'
  | 'composer'
  | 'service'
  | 'environments'
  | 'sandbox'
  | 'bank'
  | 'callbacks'
  | 'notifications'
  | 'conformance'
  | 'scenarios'
  | 'reference';

/**
 * The link to a page.
 *
 * @example
 * pageHref('inspector'); // '#/inspector'
 */
export function pageHref(id: PageId): string {
  return `#/${id}`;
}

/**
 * The page id a hash names, as written (routes.ts falls back to the first page for an unknown one).
 *
 * @example
 * hashPageId('#/reference/4.4'); // 'reference'
 */
export function hashPageId(hash: string): string {
  return hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
}

function subscribeHash(onChange: () => void) {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/** The location hash, live (`#/reference/4.4`). */
export function useHash(): string {
  return useSyncExternalStore(subscribeHash, () => window.location.hash);
}

/**
 * Opens a page (a no-op when it is already open, so a deeper hash like `#/reference/4.4` stays).
 *
 * @example
 * navigate('inspector');
 */
export function navigate(id: PageId): void {
  if (hashPageId(window.location.hash) !== id || window.location.hash === '')
    window.location.hash = pageHref(id);
}
