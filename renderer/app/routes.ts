import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { useSyncExternalStore } from 'react';

/**
 * The pages, in nav order. Nav, routing and the page title all read this table, so a new page
 * (Walkthrough, Keys, Composer, Callbacks, Notifications, Sandbox, Conformance) is one entry here
 * plus its folder under features/.
 */
export interface PageDef {
  id: string;
  label: string;
  /** One line under the page title and in the nav tooltip. */
  summary: string;
  /** A one- or two-letter glyph for the nav (no icon font: the CSP allows only our own files). */
  glyph: string;
  Page: ComponentType | LazyExoticComponent<ComponentType>;
}

const InspectorPage = lazy(() =>
  import('../features/inspector/inspector-page').then((m) => ({ default: m.InspectorPage })),
);

const SandboxPage = lazy(() =>
  import('../features/sandbox/sandbox-page').then((m) => ({ default: m.SandboxPage })),
);

export const PAGES: readonly PageDef[] = [
  {
    id: 'inspector',
    label: 'Inspector',
    summary: 'Decode any token (CX-Authorization, X-Session-ID, session_token) and run every check on it.',
    glyph: '{}',
    Page: InspectorPage,
  },
  {
    id: 'sandbox',
    label: 'Sandbox',
    summary:
      'The service, simulated: onboard your bank, run the registration flow against its callbacks, send notifications.',
    glyph: 'SB',
    Page: SandboxPage,
  },
];

export const DEFAULT_PAGE = PAGES[0]!;

/** Hash routing (`#/inspector`): works the same from `app://console/` and from the loopback host. */
export function pageHref(page: PageDef): string {
  return `#/${page.id}`;
}

function pageFromHash(hash: string): PageDef {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
  return PAGES.find((p) => p.id === id) ?? DEFAULT_PAGE;
}

function subscribeHash(onChange: () => void) {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

export function useCurrentPage(): PageDef {
  const hash = useSyncExternalStore(subscribeHash, () => window.location.hash);
  return pageFromHash(hash);
}

export function navigateTo(page: PageDef): void {
  if (pageFromHash(window.location.hash).id !== page.id || window.location.hash === '')
    window.location.hash = pageHref(page);
}
