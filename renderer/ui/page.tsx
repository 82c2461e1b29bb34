/**
 * The frame every page repeated: the page element with its test id and `data-state` (tests wait
 * for "ready" instead of sleeping), its {@link PageHead}, and the Refresh button and live panel
 * title of the pages that follow live events.
 */
import type { ReactNode } from 'react';
import { LiveDot, PageHead } from '../shared/page-head';

export interface PageProps {
  /** The page element's class. */
  className: string;
  testId: string;
  /** `data-state`: loading, ready or error. */
  state: string;
  title: string;
  actions?: ReactNode;
  /** The summary under the title. */
  intro: ReactNode;
  children: ReactNode;
}

/**
 * @example
 * <Page className="sandbox" testId="sandbox-page" state={state} title="Sandbox" intro="The service, simulated…">
 *   …
 * </Page>
 */
export function Page({ className, testId, state, title, actions, intro, children }: PageProps) {
  return (
    <div className={className} data-testid={testId} data-state={state}>
      <PageHead title={title} actions={actions}>
        {intro}
      </PageHead>
      {children}
    </div>
  );
}

/** A page's small "Refresh" button. */
export function RefreshButton({ onClick, testId }: { onClick: () => void; testId: string }) {
  return (
    <button type="button" className="btn btn-small" onClick={onClick} data-testid={testId}>
      Refresh
    </button>
  );
}

/**
 * A panel titled "<title> newest first" with a live dot at the end of the title: the lists that
 * grow from live events (sandbox traces, service exchanges).
 *
 * @example
 * <LivePanel id="traces-title" className="sandbox-traces" title="Traces" live={live} what="traces" liveTestId="traces-live">…</LivePanel>
 */
export function LivePanel({
  id,
  className,
  title,
  live,
  what,
  liveTestId,
  children,
}: {
  /** The title's id (the section is labelled by it). */
  id: string;
  className: string;
  title: string;
  live: boolean;
  /** What appears as it happens ("traces"), for the dot's tooltip. */
  what: string;
  liveTestId: string;
  children: ReactNode;
}) {
  const tip = live ? `New ${what} appear as they happen` : 'Live events are not flowing: press Refresh';
  return (
    <section className={`panel ${className}`} aria-labelledby={id}>
      <h2 id={id} className="panel-title">
        {title} <span className="panel-note">newest first</span>
        <span className="panel-spacer" />
        <LiveDot live={live} title={tip} testId={liveTestId} />
      </h2>
      <div className="panel-body">{children}</div>
    </section>
  );
}
