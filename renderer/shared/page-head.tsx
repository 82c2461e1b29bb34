import type { ReactNode } from 'react';

/**
 * A page's header: the title, the summary (children) under it, then an optional status line and the
 * page's actions (buttons, a live dot).
 */
export function PageHead({
  title,
  status,
  actions,
  children,
}: {
  title: string;
  /** Between the summary and the actions (a busy indicator). */
  status?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <header className="page-head">
      <h1>{title}</h1>
      <p className="page-summary">{children}</p>
      {status}
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}

/** "live" while a page's live events flow, "not live" when they do not. */
export function LiveDot({ live, title, testId }: { live: boolean; title?: string; testId: string }) {
  return (
    <span className={`live-dot ${live ? 'is-live' : ''}`} title={title} data-testid={testId}>
      {live ? 'live' : 'not live'}
    </span>
  );
}
