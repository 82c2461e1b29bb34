import { useEnvironments } from '../../data/environments';
import { SelectionBar } from '../../shared/row-selection';
import { SaveScenarioButton } from '../../shared/save-scenario';
import { StoreSearch } from '../../shared/store-search';
import { Toggle } from '../../ui/toggle';
import type { CallbacksPageState } from './use-callbacks-page';

/** The filters above the list: failed only, grouping by check, the chosen check, search, count. */
export function CallbacksToolbar({ p }: { p: CallbacksPageState }) {
  const { failedOnly, groupByCheck, failedCheck, text, total, shown, filtering } = p;
  return (
    <div className="callbacks-toolbar">
      <Toggle checked={failedOnly} onChange={p.setFailedOnly} testId="callbacks-failed-only">
        Failed only <span className="badge badge-fail">{p.failedCount}</span>
      </Toggle>
      <Toggle checked={groupByCheck} onChange={p.setGroupByCheck} testId="callbacks-group-by-check">
        Group by failed check
      </Toggle>
      <EnvironmentFilter value={p.environment} onChange={p.setEnvironment} />
      {failedCheck ? (
        <button
          type="button"
          className="btn btn-small"
          onClick={() => p.setFailedCheck(null)}
          data-testid="callbacks-clear-check"
        >
          check: {failedCheck} ✕
        </button>
      ) : null}
      <StoreSearch
        value={text}
        onChange={p.setText}
        what="callbacks"
        columns="obj, sub, path, failed check, warning, sender"
        className="callbacks-search"
        testId="callbacks-search"
      />
      <span className="panel-spacer" />
      <span
        className="muted"
        data-testid="callbacks-count"
        data-total={total}
        data-loaded={shown.length}
        data-filtering={String(filtering)}
        aria-busy={filtering}
      >
        {total.toLocaleString('en')} match{total === 1 ? '' : 'es'}
      </span>
      <SelectionBar selection={p.selection} listed={shown.length} what="callbacks" testId="callbacks" />
      <SaveScenarioButton
        selectedIds={p.selection.selectedListed}
        listedIds={p.shownIds}
        what="callbacks"
        testId="callbacks-save-scenario"
      />
      <span className="kbd-hint muted">
        <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>Enter</kbd> open · <kbd>x</kbd> select
      </span>
    </div>
  );
}

/** The failed checks with their counts; choosing one filters the list to it. */
export function CheckGroups({ p }: { p: CallbacksPageState }) {
  const { groups, failedCheck } = p;
  return (
    <ul className="check-groups" data-testid="callbacks-groups">
      {groups.length === 0 ? <li className="muted">No failed callback.</li> : null}
      {groups.map((g) => (
        <li key={g.check}>
          <button
            type="button"
            className={`check-group ${failedCheck === g.check ? 'is-active' : ''}`}
            onClick={() => p.setFailedCheck(failedCheck === g.check ? null : g.check)}
            data-testid={`callbacks-group-${g.check}`}
            data-count={g.count}
            aria-pressed={failedCheck === g.check}
          >
            <code>{g.check}</code> <span className="badge badge-fail">{g.count}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

/**
 * Which environment's callbacks are listed (issue 26 item 1; DESIGN.md "Environments": a
 * callback belongs to the environment whose service published its token's kid, whatever the
 * header shows). A native select: reachable with Tab, changed with the arrow keys.
 */
function EnvironmentFilter({
  value,
  onChange,
}: {
  value: string | null;
  onChange: (id: string | null) => void;
}) {
  const environments = useEnvironments().data?.environments ?? [];
  // A chosen environment removed since stays listed, so the select never shows a value it lacks.
  const known = value === null || environments.some((e) => e.id === value);
  return (
    <label className="callbacks-env-filter">
      <span className="muted">Environment</span>
      <select
        className="input"
        value={value ?? ''}
        onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)}
        data-testid="callbacks-environment"
      >
        <option value="">All environments</option>
        {environments.map((e) => (
          <option key={e.id} value={e.id}>
            {e.name}
          </option>
        ))}
        {known ? null : <option value={value}>{value} (removed)</option>}
      </select>
    </label>
  );
}
