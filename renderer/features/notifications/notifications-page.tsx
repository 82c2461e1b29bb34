import { EventDetailPanel } from '../../shared/event-detail-panel';
import { ErrorPanel } from '../../shared/error-panel';
import { PageHead } from '../../shared/page-head';
import { Segmented } from '../../shared/segmented';
import { NotificationFeed } from './notification-feed';
import { type RateScale } from './notifications-store';
import { RateChart } from './rate-chart';
import { RetentionPanel } from './retention-panel';
import { NotificationsActions, NotificationsToolbar } from './notifications-toolbar';
import { useNotificationsPage, type NotificationsPageState } from './use-notifications-page';
import './notifications.css';

const SCALE_OPTIONS: Array<{ value: RateScale; label: string }> = [
  { value: 'second', label: 'per second' },
  { value: 'minute', label: 'per minute' },
];

/**
 * Every notification the bank endpoints stored (POST pay-in, pay-out, transfer), newest first and
 * live, in a virtualized feed. Route, outcome and search are answered by the store (issue 13,
 * items 8 and 9), so a filter over 100,000 stored notifications is one indexed query, not a scan
 * of what the page holds.
 */
export function NotificationsPage() {
  const p = useNotificationsPage();
  const { exporter, selectedId, select } = p;
  return (
    <div
      className="notifications-page"
      data-testid="notifications-page"
      data-state={p.query.data ? 'ready' : 'loading'}
    >
      <PageHead title="Notifications" actions={<NotificationsActions p={p} />}>
        Every pay-in, pay-out and transfer the service posted to your bank, stored before the 200: repeats
        marked, invalid bodies rejected with their reason.
      </PageHead>
      {exporter.error ? (
        <ErrorPanel title="Export failed" error={exporter.error} testId="notifications-export-error" />
      ) : null}
      {exporter.data ? (
        <p className="muted" role="status" data-testid="notifications-export-result">
          Exported {exporter.data.count} notifications to {exporter.data.filename}.
        </p>
      ) : null}
      {p.showRetention ? (
        <div id="notifications-retention">
          <RetentionPanel />
        </div>
      ) : null}
      <section className="panel notifications-rate-panel" aria-label="Rate">
        <h2 className="panel-title">
          Rate
          <span className="panel-spacer" />
          <Segmented
            inline
            label="Rate scale"
            name="notifications-rate-scale"
            options={SCALE_OPTIONS}
            value={p.scale}
            onChange={p.setScale}
            testIdPrefix="notifications-rate-"
          />
        </h2>
        <RateChart scale={p.scale} />
      </section>
      <NotificationsToolbar p={p} />
      <div className={`notifications-body ${selectedId ? 'has-detail' : ''}`}>
        <FeedPanel p={p} />
        {selectedId ? (
          <aside className="notifications-side" aria-label="Notification detail">
            <EventDetailPanel key={selectedId} id={selectedId} onClose={() => select(null)} />
          </aside>
        ) : null}
      </div>
    </div>
  );
}

/** The feed: loading, empty (with or without filters), or the rows. */
function FeedPanel({ p }: { p: NotificationsPageState }) {
  const { query, events, filters } = p;
  return (
    <section className="panel notifications-feed-panel" aria-label="Feed">
      {query.error ? (
        <ErrorPanel title="Notifications unavailable" error={query.error} testId="notifications-error" />
      ) : !query.data ? (
        <p className="muted">Loading…</p>
      ) : events.length === 0 ? (
        <div className="empty" data-testid="notifications-empty">
          {Object.keys(filters).length > 1 ? (
            <>
              <h2>No notification matches</h2>
              <p>Clear the search or the filters to see the others.</p>
            </>
          ) : (
            <>
              <h2>No notification yet</h2>
              <p>
                The service posts them to your bank at the notification paths shown on the Bank page; the
                Sandbox page can send some on demand.
              </p>
            </>
          )}
        </div>
      ) : (
        <NotificationFeed
          rows={p.shown}
          grouped={p.grouped}
          selectedId={p.selectedId}
          cursorId={p.cursorId}
          onSelect={p.open}
          isChecked={p.selection.isSelected}
          onToggle={p.selection.toggle}
          isOpen={(key) => p.openGroups[key] === true}
          onToggleGroup={p.toggleGroup}
          scroller={p.scroller}
          onNearEnd={p.loadMore}
          listKey={JSON.stringify(filters)}
        />
      )}
      {query.isFetchingNextPage ? <p className="muted feed-more">Loading older notifications…</p> : null}
    </section>
  );
}
