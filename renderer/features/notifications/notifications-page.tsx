import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useListKeys } from '../../shared/use-list-keys';
import { EventDetailPanel } from '../../shared/event-detail-panel';
import type { EventQuery } from '../../../electron/contract/schemas/events';
import { useEventStreamState } from '../../api/client-context';
import { ErrorPanel } from '../../shared/error-panel';
import { StoreSearch, useSettledSearch } from '../../shared/store-search';
import { DisclosureButton } from '../../shared/disclosure-button';
import { Options } from '../../shared/options';
import { LiveDot, PageHead } from '../../shared/page-head';
import { Segmented } from '../../shared/segmented';
import { useBankStatus } from '../../data/bank';
import { NotificationFeed } from './notification-feed';
import { groupRepeats, OUTCOMES, ROUTES, toRows, type Outcome, type Route } from './notifications-model';
import { useNotificationsStore, type RateScale } from './notifications-store';
import { RateChart } from './rate-chart';
import { RetentionPanel } from './retention-panel';
import {
  MAX_LOADED,
  useExportNotifications,
  useNotificationCounts,
  useNotificationFeed,
} from '../../data/notifications';
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
  const [showRetention, setShowRetention] = useState(false);
  const live = useEventStreamState().status === 'connected';
  const { route, outcome, text, grouped, scale, selectedId, cursorId } = useNotificationsStore();
  const { setRoute, setOutcome, setText, setGrouped, setScale, select, moveCursor } =
    useNotificationsStore.getState();
  const scroller = useRef<HTMLDivElement>(null);
  const settledText = useSettledSearch(text);
  const prefix = useBankStatus().data?.notify_path_prefix ?? '/api/svc/notify';
  const filters: EventQuery & { kind: 'notification' } = {
    kind: 'notification',
    ...(route ? { path: `${prefix}/${route}` } : {}),
    ...(outcome ? { outcome } : {}),
    ...(settledText.trim() ? { text: settledText.trim() } : {}),
  };
  const { query, events, total } = useNotificationFeed(filters);
  const counts = useNotificationCounts(live).data;
  const exporter = useExportNotifications();
  // "Exported 13 notifications" is a transient message: it goes after a few seconds (issue 13, 8).
  const { data: exported, reset: resetExport } = exporter;
  useEffect(() => {
    if (!exported) return;
    const t = setTimeout(resetExport, 5_000);
    return () => clearTimeout(t);
  }, [exported, resetExport]);

  const rows = useMemo(() => (grouped ? groupRepeats(events) : toRows(events)), [events, grouped]);
  useListKeys({
    ids: () => rows.map((r) => r.event.id),
    cursorId,
    listRef: scroller,
    onMove: moveCursor,
    onOpen: select,
    onClose: () => select(null),
  });
  const repeats = counts?.groups.find((g) => g.value === 'repeat')?.count ?? 0;
  const all = counts?.total ?? total;

  // Older pages load as the reader nears the end of what is loaded (up to MAX_LOADED).
  const { hasNextPage, isFetchingNextPage, fetchNextPage, isError } = query;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage && !isError) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, isError, fetchNextPage]);
  const filtering = query.isPlaceholderData || settledText !== text;

  return (
    <div
      className="notifications-page"
      data-testid="notifications-page"
      data-state={query.data ? 'ready' : 'loading'}
    >
      <PageHead
        title="Notifications"
        actions={
          <>
            <LiveDot live={live} testId="notifications-live" />
            <DisclosureButton
              expanded={showRetention}
              controls="notifications-retention"
              onToggle={() => setShowRetention((v) => !v)}
              className="btn btn-small"
              testId="notifications-retention-toggle"
            >
              Retention
            </DisclosureButton>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => exporter.mutate({ format: 'json', query: filters })}
              disabled={exporter.isPending}
              data-testid="notifications-export-json"
              title="The matching notifications as JSON Lines, straight from the store"
            >
              Export JSON
            </button>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => exporter.mutate({ format: 'csv', query: filters })}
              disabled={exporter.isPending}
              data-testid="notifications-export-csv"
            >
              Export CSV
            </button>
          </>
        }
      >
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

      {showRetention ? (
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
            value={scale}
            onChange={setScale}
            testIdPrefix="notifications-rate-"
          />
        </h2>
        <RateChart scale={scale} />
      </section>

      <div className="notifications-toolbar">
        <label>
          <span className="sr-only">Route</span>
          <select
            className="input"
            value={route ?? ''}
            onChange={(e) => setRoute((e.target.value || null) as Route | null)}
            data-testid="notifications-route"
          >
            <option value="">all routes</option>
            <Options values={ROUTES} />
          </select>
        </label>
        <label>
          <span className="sr-only">Outcome</span>
          <select
            className="input"
            value={outcome ?? ''}
            onChange={(e) => setOutcome((e.target.value || null) as Outcome | null)}
            data-testid="notifications-outcome"
          >
            <option value="">all outcomes</option>
            <Options values={OUTCOMES} />
          </select>
        </label>
        <StoreSearch
          value={text}
          onChange={setText}
          what="notifications"
          columns="transaction_id, path, warning, sender"
          className="notifications-search"
          testId="notifications-search"
        />
        <label className="toggle">
          <input
            type="checkbox"
            checked={grouped}
            onChange={(e) => setGrouped(e.target.checked)}
            data-testid="notifications-group-repeats"
          />
          Group repeats by transaction_id
        </label>
        <span className="panel-spacer" />
        <span
          className="muted"
          data-testid="notifications-count"
          data-rows={rows.length}
          data-loaded={events.length}
          data-total={total}
          data-filtering={String(filtering)}
          aria-busy={filtering}
        >
          {total.toLocaleString()} match{total === 1 ? '' : 'es'}
          {total !== all ? ` of ${all.toLocaleString()}` : ''}
          {grouped ? ` · ${rows.length.toLocaleString()} transactions loaded` : ''} ·{' '}
          {repeats.toLocaleString()} repeats
          {events.length >= MAX_LOADED
            ? ` · newest ${MAX_LOADED.toLocaleString('en')} listed; search or export reads them all`
            : ''}
        </span>
      </div>

      <div className={`notifications-body ${selectedId ? 'has-detail' : ''}`}>
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
              rows={rows}
              grouped={grouped}
              selectedId={selectedId}
              cursorId={cursorId}
              onSelect={select}
              scroller={scroller}
              onNearEnd={loadMore}
              listKey={JSON.stringify(filters)}
            />
          )}
          {isFetchingNextPage ? <p className="muted feed-more">Loading older notifications…</p> : null}
        </section>
        {selectedId ? (
          <aside className="notifications-side" aria-label="Notification detail">
            <EventDetailPanel key={selectedId} id={selectedId} onClose={() => select(null)} />
          </aside>
        ) : null}
      </div>
    </div>
  );
}
