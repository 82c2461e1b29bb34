import type { InspectReport } from '../../../electron/contract/schemas/inspector';
import { ErrorPanel } from '../../shared/error-panel';
import { formatDuration, formatLocal } from '../../shared/format';
import { DataTable, type Column } from '../../ui/data-table';

type TimeClaim = InspectReport['times'][number];

const TIME_COLUMNS: ReadonlyArray<Column<TimeClaim>> = [
  { header: 'claim', rowHeader: true, cell: (t) => <code>{t.name}</code> },
  {
    header: 'value',
    cell: (t) => (
      <>
        {t.value}
        {t.unit === 'ms' ? <span className="badge badge-warn">ms</span> : null}
      </>
    ),
    cellProps: () => ({ className: 'mono' }),
  },
  {
    header: 'local time',
    cell: (t) => formatLocal(t.iso) ?? <span className="muted">not a time</span>,
    cellProps: (t) => ({ title: t.iso ?? undefined }),
  },
  { header: 'relative', cell: (t) => t.relative ?? <span className="muted">—</span> },
];

/** exp − iat, under the times: red when zero or negative. */
function LifetimeRow({ seconds }: { seconds: number }) {
  return (
    <tr data-testid="lifetime">
      <th scope="row">lifetime</th>
      <td className="mono">{seconds} s</td>
      <td colSpan={2} className={seconds <= 0 ? 'text-fail' : undefined}>
        exp − iat = {formatDuration(seconds)}
        {seconds <= 0 ? ' (zero or negative)' : ''}
      </td>
    </tr>
  );
}

export function TimesTable({ report }: { report: InspectReport }) {
  if (report.times.length === 0 && report.lifetimeSeconds === null) return null;
  const asOf = formatLocal(report.inspectedAt);
  return (
    <section className="panel" aria-labelledby="times-title">
      <h2 id="times-title" className="panel-title">
        Times <span className="panel-note">relative to {asOf ?? report.inspectedAt}</span>
      </h2>
      <DataTable
        rows={report.times}
        columns={TIME_COLUMNS}
        rowKey={(t) => t.name}
        rowProps={(t) => ({ 'data-testid': `time-${t.name}` })}
        footer={report.lifetimeSeconds !== null ? <LifetimeRow seconds={report.lifetimeSeconds} /> : null}
        className="times"
        testId="times"
      />
    </section>
  );
}

export function InspectError({ error }: { error: Error }) {
  return <ErrorPanel title="Inspection failed" error={error} testId="inspect-error" />;
}
