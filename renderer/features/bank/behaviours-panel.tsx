import { useState } from 'react';
import type { z } from 'zod';
import type { Behaviour, Behaviours } from '../../../electron/contract/schemas/bank';
import { ErrorPanel } from '../../shared/error-panel';
import { DataTable, type Column } from '../../ui/data-table';
import { activeBehaviours, useSetBehaviours } from '../../data/bank';
import { Allowed } from '../../shared/allowed';

type B = z.output<typeof Behaviour>;
type All = z.output<typeof Behaviours>;

interface RouteRow {
  id: string;
  label: string;
  kind: 'callback' | 'notify';
  userAuth?: boolean;
  extId?: boolean;
}

const ROUTES: RouteRow[] = [
  { id: 'user_auth', label: 'GET /user_auth', kind: 'callback', userAuth: true, extId: true },
  { id: 'key', label: 'GET /key', kind: 'callback' },
  { id: 'external_id', label: 'GET /external_id', kind: 'callback', extId: true },
  { id: 'pay-in', label: 'POST pay-in', kind: 'notify' },
  { id: 'pay-out', label: 'POST pay-out', kind: 'notify' },
  { id: 'transfer', label: 'POST transfer', kind: 'notify' },
];

function clean(b: B): B | null {
  const out: B = {};
  if (b.delay_ms) out.delay_ms = b.delay_ms;
  if (b.status !== undefined) out.status = b.status;
  if (b.omit_field) out.omit_field = b.omit_field;
  if (b.long_external_id) out.long_external_id = true;
  return Object.keys(out).length > 0 ? out : null;
}

/** Deliberate misbehaviour per route, to see how the service copes with a slow or broken bank. */
export function BehavioursPanel({ behaviours }: { behaviours: All }) {
  const set = useSetBehaviours();
  const [draft, setDraft] = useState<All>(behaviours);
  const [statusText, setStatusText] = useState<Record<string, string>>(() =>
    Object.fromEntries(Object.entries(behaviours).map(([k, b]) => [k, b.status ? String(b.status) : ''])),
  );
  const update = (route: string, patch: Partial<B>) => {
    setDraft((old) => {
      const merged = { ...(old[route] ?? {}), ...patch };
      for (const k of Object.keys(patch) as (keyof B)[]) if (patch[k] === undefined) delete merged[k];
      return { ...old, [route]: merged };
    });
  };
  const apply = (next: All) => {
    const out: All = {};
    for (const [route, b] of Object.entries(next)) {
      const c = clean(b);
      if (c) out[route] = c;
    }
    set.mutate(out, { onSuccess: (saved) => setDraft(saved) });
  };
  const active = activeBehaviours({ behaviours } as never);
  const dirty = JSON.stringify(draft) !== JSON.stringify(behaviours);
  return (
    <section className="panel" aria-labelledby="behaviours-title" data-testid="bank-behaviours">
      <h2 id="behaviours-title" className="panel-title">
        Behaviours <span className="panel-note">misbehave on purpose, per route</span>
        <span className="panel-spacer" />
        <Allowed method="bank.setBehaviours">
          {active.length > 0 ? (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => apply({})}
              data-testid="behaviours-clear"
            >
              All off
            </button>
          ) : null}
        </Allowed>
      </h2>
      <DataTable
        className="behaviours-table"
        rows={ROUTES}
        rowKey={(r) => r.id}
        rowProps={(r) => ({
          'data-testid': `behaviour-${r.id}`,
          className: clean(behaviours[r.id] ?? {}) ? 'is-on' : '',
        })}
        columns={behaviourColumns({ draft, statusText, setStatusText, update })}
      />
      <div className="form-actions">
        <span className="muted">
          A delay over 1000 ms breaks the spec’s 1 s budget; a fixed status answers it with an empty body.
        </span>
        <Allowed method="bank.setBehaviours">
          <button
            type="button"
            className="btn btn-primary"
            disabled={!dirty || set.isPending}
            onClick={() => apply(draft)}
            data-testid="behaviours-apply"
          >
            {set.isPending ? 'Applying…' : 'Apply behaviours'}
          </button>
        </Allowed>
      </div>
      {set.error ? (
        <ErrorPanel title="Behaviours refused" error={set.error} testId="behaviours-error" />
      ) : null}
    </section>
  );
}

interface Editing {
  draft: All;
  statusText: Record<string, string>;
  setStatusText: (f: (old: Record<string, string>) => Record<string, string>) => void;
  update: (route: string, patch: Partial<B>) => void;
}

/** The table's columns: the route, then one control per behaviour. */
function behaviourColumns({ draft, statusText, setStatusText, update }: Editing): Column<RouteRow>[] {
  const na = <span className="muted">n/a</span>;
  return [
    { header: 'route', cell: (r) => <code>{r.label}</code> },
    {
      header: 'delay (ms)',
      cell: (r) => (
        <input
          className="input input-narrow"
          type="number"
          min={0}
          max={30000}
          step={100}
          value={draft[r.id]?.delay_ms ?? ''}
          placeholder="0"
          onChange={(e) =>
            update(r.id, {
              delay_ms: e.target.value ? Math.max(0, Math.min(30_000, Number(e.target.value))) : undefined,
            })
          }
          data-testid={`behaviour-${r.id}-delay`}
          aria-label={`${r.label}: delay in ms`}
        />
      ),
    },
    {
      header: 'fixed status',
      cell: (r) => (
        <input
          className="input input-narrow"
          type="number"
          min={100}
          max={599}
          value={statusText[r.id] ?? ''}
          placeholder="—"
          onChange={(e) => {
            const v = e.target.value;
            setStatusText((old) => ({ ...old, [r.id]: v }));
            const n = Number(v);
            update(r.id, { status: v && n >= 100 && n <= 599 ? Math.trunc(n) : undefined });
          }}
          data-testid={`behaviour-${r.id}-status`}
          aria-label={`${r.label}: answer this status instead`}
        />
      ),
    },
    {
      header: 'omit field',
      cell: (r) =>
        r.userAuth ? (
          <select
            className="input"
            value={draft[r.id]?.omit_field ?? ''}
            onChange={(e) => update(r.id, { omit_field: (e.target.value || undefined) as B['omit_field'] })}
            data-testid={`behaviour-${r.id}-omit`}
            aria-label={`${r.label}: leave out a required field`}
          >
            <option value="">—</option>
            <option value="external_id">external_id</option>
            <option value="key">key</option>
            <option value="phone">phone</option>
          </select>
        ) : (
          na
        ),
    },
    {
      header: 'long external_id',
      cell: (r) =>
        r.extId ? (
          <input
            type="checkbox"
            checked={draft[r.id]?.long_external_id === true}
            onChange={(e) => update(r.id, { long_external_id: e.target.checked || undefined })}
            data-testid={`behaviour-${r.id}-long-external-id`}
            aria-label={`${r.label}: answer an external_id of 501 symbols`}
          />
        ) : (
          na
        ),
    },
  ];
}
