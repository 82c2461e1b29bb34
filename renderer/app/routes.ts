import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { hashPageId, useHash, type PageId } from './navigation';

/**
 * The pages, in nav order. Nav, routing and the page title all read this table, so a new page
 * (Walkthrough, Keys, Composer, Callbacks, Notifications, Sandbox, Conformance) is one entry here,
 * its id in navigation.ts's PageId, plus its folder under features/. Pages never import this
 * table (it imports them): they navigate with navigation.ts.
 */
export interface PageDef {
  id: PageId;
  label: string;
  /** One line under the page title and in the nav tooltip. */
  summary: string;
  /** A one- or two-letter glyph for the nav (no icon font: the CSP allows only our own files). */
  glyph: string;
  Page: ComponentType | LazyExoticComponent<ComponentType>;
}

const WalkthroughPage = lazy(() =>
  import('../features/walkthrough/walkthrough-page').then((m) => ({ default: m.WalkthroughPage })),
);

const ConformancePage = lazy(() =>
  import('../features/conformance/conformance-page').then((m) => ({ default: m.ConformancePage })),
);

const InspectorPage = lazy(() =>
  import('../features/inspector/inspector-page').then((m) => ({ default: m.InspectorPage })),
);

const KeysPage = lazy(() => import('../features/keys/keys-page').then((m) => ({ default: m.KeysPage })));

const ComposerPage = lazy(() =>
  import('../features/composer/composer-page').then((m) => ({ default: m.ComposerPage })),
);

const ServicePage = lazy(() =>
  import('../features/service/service-page').then((m) => ({ default: m.ServicePage })),
);

const EnvironmentsPage = lazy(() =>
  import('../features/environments/environments-page').then((m) => ({ default: m.EnvironmentsPage })),
);

const SandboxPage = lazy(() =>
  import('../features/sandbox/sandbox-page').then((m) => ({ default: m.SandboxPage })),
);

const CallbacksPage = lazy(() =>
  import('../features/callbacks/callbacks-page').then((m) => ({ default: m.CallbacksPage })),
);

const NotificationsPage = lazy(() =>
  import('../features/notifications/notifications-page').then((m) => ({ default: m.NotificationsPage })),
);

const ScenariosPage = lazy(() =>
  import('../features/scenarios/scenarios-page').then((m) => ({ default: m.ScenariosPage })),
);

const ReferencePage = lazy(() =>
  import('../features/reference/reference-page').then((m) => ({ default: m.ReferencePage })),
);

const BankPage = lazy(() => import('../features/bank/bank-page').then((m) => ({ default: m.BankPage })));

export const PAGES: readonly PageDef[] = [
  {
    id: 'walkthrough',
    label: 'Walkthrough',
    summary:
      'From an empty profile to a verified registration flow (spec 4.4), step by step, each step proven by a real event.',
    glyph: 'WT',
    Page: WalkthroughPage,
  },
  {
    id: 'inspector',
    label: 'Inspector',
    summary: 'Decode any token (CX-Authorization, X-Session-ID, session_token) and run every check on it.',
    glyph: '{}',
    Page: InspectorPage,
  },
  {
    id: 'keys',
    label: 'Keys',
    summary:
      'Your bank’s signing keys: generate, import, export the public JWK, expiry; private parts stay in the vault.',
    glyph: 'K',
    Page: KeysPage,
  },
  {
    id: 'composer',
    label: 'Composer',
    summary: 'Compose and sign a bank JWT (flow, obj, sub, iat, exp) with a vault key; copy it or send it.',
    glyph: 'JW',
    Page: ComposerPage,
  },
  {
    id: 'service',
    label: 'Service',
    summary:
      'Talk to the active environment: authenticate, the JWKS, registered JWKs, key rotation, every exchange.',
    glyph: 'SV',
    Page: ServicePage,
  },
  {
    id: 'environments',
    label: 'Environments',
    summary: 'The sandbox and your real environments: base URL, counterparty GUID, active key, defaults.',
    glyph: 'EN',
    Page: EnvironmentsPage,
  },
  {
    id: 'sandbox',
    label: 'Sandbox',
    summary:
      'The service, simulated: onboard your bank, run the registration flow against its callbacks, send notifications.',
    glyph: 'SB',
    Page: SandboxPage,
  },
  {
    id: 'bank',
    label: 'Bank',
    summary:
      'Your bank’s side, played by the console: URLs to give the service, test customers, behaviours, forward mode.',
    glyph: 'BK',
    Page: BankPage,
  },
  {
    id: 'callbacks',
    label: 'Callbacks',
    summary:
      'Every /user_auth, /key, /external_id callback: the check that failed, the answer, the 1 s budget.',
    glyph: 'CB',
    Page: CallbacksPage,
  },
  {
    id: 'notifications',
    label: 'Notifications',
    summary: 'Every pay-in, pay-out and transfer notification, live: filter, group repeats, export.',
    glyph: 'NT',
    Page: NotificationsPage,
  },
  {
    id: 'conformance',
    label: 'Conformance',
    summary:
      'Test your bank’s own callbacks the way the service will: good and bad tokens, required fields, the 1 s budget.',
    glyph: 'CF',
    Page: ConformancePage,
  },
  {
    id: 'scenarios',
    label: 'Scenarios',
    summary:
      'Flows kept in git as files: run one against the active environment’s bank with fresh tokens, as CI does.',
    glyph: 'SC',
    Page: ScenariosPage,
  },
  {
    id: 'reference',
    label: 'Reference',
    summary:
      'The service interface, section by section, with what the console does about each; spec citations open here.',
    glyph: 'RF',
    Page: ReferencePage,
  },
];

export const DEFAULT_PAGE = PAGES[0]!;

/** The page the location hash names, live; the first page for an empty or unknown hash. */
export function useCurrentPage(): PageDef {
  const id = hashPageId(useHash());
  return PAGES.find((p) => p.id === id) ?? DEFAULT_PAGE;
}
