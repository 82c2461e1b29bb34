/**
 * The team hub's routes on the Bank page (issue 30 item 3: "Routes are visible to the team (who
 * routes what where)"; docs/team-hub.md "Routes"): every member's routes, live from the hub's
 * `team.rerouted`. The page `attach --forward-to` serves also adds routes to its own laptop;
 * Remove and Add show only to a role that may call them (`<Allowed>`), the hub refusing anyway.
 */
import { useState } from 'react';
import { globProblem, type RouteField, type RouteInfo } from '../../../electron/contract/schemas/team';
import { useTeamSession } from '../../data/app';
import { useAddRoute, useRemoveRoute, useRoutes } from '../../data/team';
import { Allowed } from '../../shared/allowed';
import { ErrorPanel } from '../../shared/error-panel';
import { Field } from '../../shared/field';
import { fieldOfError } from '../../shared/field-errors';
import { DataTable, RowButton, textColumn, timeColumn, type Column } from '../../ui/data-table';

const columns: Column<RouteInfo>[] = [
  textColumn('Member', (r) => r.member, { testId: 'route-member' }),
  textColumn('Claim', (r) => `${r.field}=${r.glob}`, { mono: true, testId: 'route-claim' }),
  textColumn('Laptop', (r) => r.attach),
  textColumn('Backend', (r) => r.forward_to ?? '—', { mono: true }),
  timeColumn('Since', (r) => r.since),
  {
    header: 'State',
    cell: (r) => (
      <span className={`badge ${r.up ? 'badge-pass' : 'badge-fail'}`}>{r.up ? 'up' : 'down'}</span>
    ),
    cellProps: (r) => ({ 'data-testid': 'route-state', 'data-up': String(r.up) }),
  },
];

/** The hub holding a route's laptop: shown when several hubs share one database (RouteInfo.hub). */
const hubColumn = textColumn<RouteInfo>('Hub', (r) => r.hub ?? '—', { testId: 'route-hub' });
const withHub = [...columns.slice(0, 3), hubColumn, ...columns.slice(3)];

/** The routes panel: shown on a team hub's pages and on attached ones, nowhere else. */
export function RoutesPanel() {
  const session = useTeamSession();
  if (!session.data?.hub) return null;
  return <RoutesBody forwardTo={session.data.forward_to ?? null} />;
}

function RoutesBody({ forwardTo }: { forwardTo: string | null }) {
  const routes = useRoutes();
  const remove = useRemoveRoute();
  return (
    <section className="panel" aria-labelledby="routes-title" data-testid="bank-routes">
      <h2 id="routes-title" className="panel-title">
        Routes
      </h2>
      <div className="panel-body">
        <p className="muted">
          Callbacks whose X-Session-ID names an obj or sub a route’s glob matches go to that member’s laptop
          (the most specific glob first, then the oldest route); notifications only to a catch-all (`*`). A
          route whose laptop is down is answered by the hub itself.
        </p>
        {routes.error ? (
          <ErrorPanel title="Routes unavailable" error={routes.error} testId="routes-error" />
        ) : null}
        {remove.error ? (
          <ErrorPanel title="Route not removed" error={remove.error} testId="route-remove-error" />
        ) : null}
        {routes.data && routes.data.length > 0 ? (
          <DataTable
            rows={routes.data}
            rowKey={(r) => r.id}
            columns={routes.data.some((r) => r.hub !== undefined) ? withHub : columns}
            rowProps={(r) => ({ 'data-testid': 'route-row', 'data-route': r.id })}
            caption="Routes of the team hub"
            actionsLabel="Route actions"
            actions={(r) => (
              <Allowed method="team.removeRoute">
                <RowButton
                  onClick={() => remove.mutate(r.id)}
                  tone="danger"
                  disabled={remove.isPending}
                  testId="route-remove"
                >
                  Remove
                </RowButton>
              </Allowed>
            )}
          />
        ) : routes.data ? (
          <p className="muted" data-testid="routes-empty">
            No routes: every callback is answered by the hub.
          </p>
        ) : null}
        {forwardTo !== null ? (
          <Allowed method="team.addRoute">
            <AddRouteForm forwardTo={forwardTo} />
          </Allowed>
        ) : null}
      </div>
    </section>
  );
}

/** Adds a route to this laptop; the glob is checked by the contract's own rule as it is typed. */
function AddRouteForm({ forwardTo }: { forwardTo: string }) {
  const [field, setField] = useState<RouteField>('sub');
  const [glob, setGlob] = useState('');
  const add = useAddRoute();
  const problem = glob === '' ? null : globProblem(glob);
  const refused = add.error ? fieldOfError(add.error, ['glob', 'field'] as const) : null;
  return (
    <form
      className="action-form"
      noValidate
      data-testid="route-add"
      onSubmit={(e) => {
        e.preventDefault();
        if (glob !== '' && problem === null) add.mutate({ field, glob }, { onSuccess: () => setGlob('') });
      }}
    >
      <h3 className="subhead">Add route to this laptop ({forwardTo})</h3>
      <Field id="route-field" label="Claim">
        <select
          id="route-field"
          className="input"
          value={field}
          onChange={(e) => setField(e.target.value as RouteField)}
          data-testid="route-field"
        >
          <option value="sub">sub (the employee)</option>
          <option value="obj">obj (the customer)</option>
        </select>
      </Field>
      <Field
        id="route-glob"
        label="Glob"
        hint="* any run, ? one character"
        error={problem ?? refused?.message}
      >
        <input
          id="route-glob"
          className="input mono"
          value={glob}
          placeholder="alice@bank.example"
          onChange={(e) => {
            setGlob(e.target.value);
            add.reset();
          }}
          aria-describedby="route-glob-note"
          data-testid="route-glob"
          spellCheck={false}
        />
      </Field>
      <div className="form-actions">
        <button
          type="submit"
          className="btn btn-primary"
          disabled={add.isPending || glob === '' || problem !== null}
          data-testid="route-add-submit"
        >
          Add route
        </button>
      </div>
    </form>
  );
}
