import type { InspectReport } from '../../../electron/contract/schemas/inspector';
import { ErrorPanel } from '../../shared/error-panel';
import { formatDuration, formatLocal } from '../../shared/format';

export function TimesTable({ report }: { report: InspectReport }) {
  if (report.times.length === 0 && report.lifetimeSeconds === null) return null;
  const asOf = formatLocal(report.inspectedAt);
  return (
    <section className="panel" aria-labelledby="times-title">
      <h2 id="times-title" className="panel-title">
        Times <span className="panel-note">relative to {asOf ?? report.inspectedAt}</span>
      </h2>
      <table className="times" data-testid="times">
        <thead>
          <tr>
            <th scope="col">claim</th>
            <th scope="col">value</th>
            <th scope="col">local time</th>
            <th scope="col">relative</th>
          </tr>
        </thead>
        <tbody>
          {report.times.map((t) => (
            <tr key={t.name} data-testid={`time-${t.name}`}>
              <th scope="row">
                <code>{t.name}</code>
              </th>
              <td className="mono">
                {t.value}
                {t.unit === 'ms' ? <span className="badge badge-warn">ms</span> : null}
              </td>
              <td title={t.iso ?? undefined}>
                {formatLocal(t.iso) ?? <span className="muted">not a time</span>}
              </td>
              <td>{t.relative ?? <span className="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
        {report.lifetimeSeconds !== null ? (
          <tfoot>
            <tr data-testid="lifetime">
              <th scope="row">lifetime</th>
              <td className="mono">{report.lifetimeSeconds} s</td>
              <td colSpan={2} className={report.lifetimeSeconds <= 0 ? 'text-fail' : undefined}>
                exp − iat = {formatDuration(report.lifetimeSeconds)}
                {report.lifetimeSeconds <= 0 ? ' (zero or negative)' : ''}
              </td>
            </tr>
          </tfoot>
        ) : null}
      </table>
    </section>
  );
}

export function InspectError({ error }: { error: Error }) {
  return <ErrorPanel title="Inspection failed" error={error} testId="inspect-error" />;
}
