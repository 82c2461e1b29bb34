import { SelectionBar } from '../../shared/row-selection';
import { SaveScenarioButton } from '../../shared/save-scenario';
import { StoreSearch } from '../../shared/store-search';
import { DisclosureButton } from '../../shared/disclosure-button';
import { LiveDot } from '../../shared/page-head';
import { Options } from '../../shared/options';
import { Toggle } from '../../ui/toggle';
import { MAX_LOADED } from '../../data/notifications';
import { OUTCOMES, ROUTES, type Outcome, type Route } from './notifications-model';
import type { NotificationsPageState } from './use-notifications-page';

/** The export buttons (the JSON export is the store's own JSON Lines, unchanged). */
const EXPORTS = [
  {
    format: 'json',
    label: 'Export JSON',
    title: 'The matching notifications as JSON Lines, straight from the store',
  },
  { format: 'csv', label: 'Export CSV', title: undefined },
] as const;

/** The page head's actions: live, retention settings, and the two exports of what matches. */
export function NotificationsActions({ p }: { p: NotificationsPageState }) {
  const { exporter, filters } = p;
  return (
    <>
      <LiveDot live={p.live} testId="notifications-live" />
      <DisclosureButton
        expanded={p.showRetention}
        controls="notifications-retention"
        onToggle={p.toggleRetention}
        className="btn btn-small"
        testId="notifications-retention-toggle"
      >
        Retention
      </DisclosureButton>
      {EXPORTS.map(({ format, label, title }) => (
        <button
          key={format}
          type="button"
          className="btn btn-small"
          onClick={() => exporter.mutate({ format, query: filters })}
          disabled={exporter.isPending}
          data-testid={`notifications-export-${format}`}
          title={title}
        >
          {label}
        </button>
      ))}
    </>
  );
}

/** A filter of the toolbar: one of `values`, or all of them (the empty choice). */
function FilterSelect<V extends string>({
  label,
  all,
  values,
  value,
  onChange,
  testId,
}: {
  label: string;
  all: string;
  values: readonly V[];
  value: V | null;
  onChange: (value: V | null) => void;
  testId: string;
}) {
  return (
    <label>
      <span className="sr-only">{label}</span>
      <select
        className="input"
        value={value ?? ''}
        onChange={(e) => onChange((e.target.value || null) as V | null)}
        data-testid={testId}
      >
        <option value="">{all}</option>
        <Options values={values} />
      </select>
    </label>
  );
}

/** Route, outcome, search, grouping, and the counts of what matches. */
export function NotificationsToolbar({ p }: { p: NotificationsPageState }) {
  const { total, all, rows, events, grouped, filtering } = p;
  return (
    <div className="notifications-toolbar">
      <FilterSelect<Route>
        label="Route"
        all="all routes"
        values={ROUTES}
        value={p.route}
        onChange={p.setRoute}
        testId="notifications-route"
      />
      <FilterSelect<Outcome>
        label="Outcome"
        all="all outcomes"
        values={OUTCOMES}
        value={p.outcome}
        onChange={p.setOutcome}
        testId="notifications-outcome"
      />
      <StoreSearch
        value={p.text}
        onChange={p.setText}
        what="notifications"
        columns="transaction_id, path, warning, sender"
        className="notifications-search"
        testId="notifications-search"
      />
      <Toggle checked={grouped} onChange={p.setGrouped} testId="notifications-group-repeats">
        Group repeats by transaction_id
      </Toggle>
      <SelectionBar
        selection={p.selection}
        listed={rows.length}
        what={grouped ? 'transactions' : 'notifications'}
        testId="notifications"
      />
      <SaveScenarioButton
        selectedIds={p.selectedEventIds}
        listedIds={events.map((e) => e.id)}
        what="notifications"
        testId="notifications-save-scenario"
      />
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
        {p.repeats.toLocaleString()} repeats
        {events.length >= MAX_LOADED
          ? ` · newest ${MAX_LOADED.toLocaleString('en')} listed; search or export reads them all`
          : ''}
      </span>
    </div>
  );
}
