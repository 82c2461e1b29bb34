import { Suspense, useEffect } from 'react';
import { useAppInfo, useNotices, useTeamSession } from '../data/app';
import { useTeamLiveUpdates } from '../data/team';
import { EnvSwitcher } from '../features/environments/env-switcher';
import { BehavioursPill } from '../features/bank/behaviours-pill';
import { TunnelPill } from '../features/bank/tunnel-pill';
import { ExpiryPill } from '../features/keys/expiry-pill';
import { EscalationPill } from '../features/sandbox/escalation-pill';
import { VaultBanner } from '../features/vault/vault-banner';
import { ConnectionStatus } from './connection-status';
import { StoreHealthPill } from './store-health';
import { ThemeSwitch } from './theme';
import { PageErrorBoundary } from './error-boundary';
import { useAppLiveUpdates } from './live-updates';
import { pageHref } from './navigation';
import { PAGES, useCurrentPage } from './routes';
import { MOD_KEY_LABEL } from '../shared/focus-request';
import { useGlobalShortcuts } from './shortcuts';

/** On a team hub's page (attached or direct): the hub's name, the member and their role (issue 30). */
function TeamBadge() {
  // Attaching or detaching from the start page changes who the pages speak for (issue 30 item 2).
  useTeamLiveUpdates();
  const session = useTeamSession();
  const s = session.data;
  if (!s || s.hub === null) return null;
  return (
    <span className="team-pill" data-testid="team-badge" title="This page shows a team hub">
      Hub {s.hub} · {s.member} ({s.role})
    </span>
  );
}

export function Shell() {
  const page = useCurrentPage();
  const info = useAppInfo();
  const notices = useNotices();
  const lastNotice = notices.at(-1);
  useGlobalShortcuts();
  useAppLiveUpdates();

  useEffect(() => {
    document.title = `${page.label} · DETS Console`;
  }, [page]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main" data-testid="skip-to-content">
        Skip to content
      </a>
      <header className="topbar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            DETS
          </span>
          <span className="brand-name">Console</span>
        </div>
        <TeamBadge />
        <EnvSwitcher />
        <ExpiryPill />
        <BehavioursPill />
        <StoreHealthPill />
        <TunnelPill />
        <EscalationPill />
        <div className="topbar-spacer" />
        <ThemeSwitch />
        <ConnectionStatus />
      </header>

      <nav className="sidenav" aria-label="Pages">
        <ul>
          {PAGES.map((p) => (
            <li key={p.id}>
              <a
                href={pageHref(p.id)}
                className="sidenav-link"
                aria-current={p.id === page.id ? 'page' : undefined}
                title={p.summary}
                data-testid={`nav-${p.id}`}
              >
                <span className="sidenav-glyph" aria-hidden="true">
                  {p.glyph}
                </span>
                {p.label}
              </a>
            </li>
          ))}
        </ul>
        <div className="sidenav-foot">
          <p className="kbd-hint">
            Focus token <kbd>{MOD_KEY_LABEL}</kbd> <kbd>/</kbd>
          </p>
        </div>
      </nav>

      <main id="main" className="page" tabIndex={-1}>
        <VaultBanner />
        <PageErrorBoundary resetKey={page.id}>
          <Suspense fallback={<p className="muted page-loading">Loading {page.label}…</p>}>
            <page.Page />
          </Suspense>
        </PageErrorBoundary>
      </main>

      <footer className="statusbar" data-testid="statusbar">
        {info.data ? (
          <>
            <span>
              {info.data.name} {info.data.version}
            </span>
            <span title="Profile: keys, settings and events live here">data {info.data.dataDir}</span>
          </>
        ) : info.error ? (
          <span className="text-fail">host info unavailable: {info.error.message}</span>
        ) : (
          <span className="muted">connecting to the console host…</span>
        )}
        <span className="statusbar-spacer" />
        {lastNotice ? (
          <span
            className={`notice notice-${lastNotice.level}`}
            data-testid="last-notice"
            title={lastNotice.at}
          >
            {lastNotice.message}
          </span>
        ) : null}
      </footer>
    </div>
  );
}
