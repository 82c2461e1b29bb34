import type { EventDetail } from '../../../electron/contract/schemas/events';
import { formatLocal } from '../../shared/format';
import { StatusMark } from '../../shared/status-mark';
import { DataTable, type Column } from '../../ui/data-table';

/** One check's outcome at the time and now, by check id. */
type RecheckRow = [id: string, row: { title: string; then?: string; now?: string }];

const RECHECK_COLUMNS: ReadonlyArray<Column<RecheckRow>> = [
  { header: 'Check', cell: ([, r]) => r.title },
  {
    header: 'At the time',
    cell: ([, r]) => (r.then ? <StatusMark status={r.then as 'passed'} /> : <span className="muted">—</span>),
  },
  {
    header: 'Now',
    cell: ([, r]) =>
      r.now ? <StatusMark status={r.now as 'passed'} /> : <span className="muted">not run again</span>,
  },
];

/** "failed sub" / "passed": one verdict in words. */
function verdictWord(failed: string | null): string {
  return failed ? `failed ${failed}` : 'passed';
}

/**
 * Re-check, side by side (issue 13 item 2): the verdict recorded when the callback was answered
 * ("at the time", which stays the callback's verdict) and how the same token fares now with the
 * current JWKS and clock ("now"). Re-check never replaces the recorded verdict.
 */
export function RecheckCompare({ recorded, now }: { recorded: EventDetail; now: EventDetail }) {
  const at = (now.data as { recheck?: { at?: string } } | undefined)?.recheck?.at ?? null;
  const rows = new Map<string, RecheckRow[1]>();
  for (const c of recorded.checks ?? []) rows.set(c.id, { title: c.title, then: c.status });
  for (const c of now.checks ?? [])
    rows.set(c.id, { ...(rows.get(c.id) ?? { title: c.title }), now: c.status });
  const same = recorded.failed_check === now.failed_check;
  return (
    <section className="panel recheck-compare" aria-label="Re-check" data-testid="callback-recheck-result">
      <h2 className="panel-title">Re-check: at the time and now</h2>
      <p className="panel-note">
        The verdict stays the one recorded when the callback was answered. “Now” runs the same token through
        the checks with the service JWKS and the clock as they are{at ? ` (${formatLocal(at)})` : ''}; the
        answer’s checks (its time against the budget, its status and body) are facts of that answer and are
        not run again.
      </p>
      <div className="recheck-verdicts">
        <div data-testid="recheck-then" data-verdict={recorded.failed_check ?? 'passed'}>
          <span className="muted">At the time (the verdict): </span>
          <StatusMark
            status={recorded.failed_check ? 'failed' : 'passed'}
            word={verdictWord(recorded.failed_check)}
          />
        </div>
        <div data-testid="recheck-now" data-verdict={now.failed_check ?? 'passed'}>
          <span className="muted">Now: </span>
          <StatusMark status={now.failed_check ? 'failed' : 'passed'} word={verdictWord(now.failed_check)} />
          {same ? <span className="muted"> (the same)</span> : null}
        </div>
      </div>
      <DataTable
        rows={[...rows]}
        columns={RECHECK_COLUMNS}
        rowKey={([id]) => id}
        rowProps={([id]) => ({ 'data-testid': `recheck-row-${id}` })}
        className="recheck-table"
      />
    </section>
  );
}
