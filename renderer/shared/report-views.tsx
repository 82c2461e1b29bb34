/**
 * How a token's checks read everywhere (Inspector, Composer, Service): the verdict, the list of
 * checks, and a decoded header or payload. Test ids are the same wherever they appear
 * (`check-<id>` with `data-status`); scope queries by the surrounding section.
 */
import { useId, type ReactNode } from 'react';
import type { Advice, Check, InspectReport } from '../../electron/contract/schemas/inspector';
import { CopyButton } from './copy-button';
import { JsonView } from './json-view';
import { StatusMark } from './status-mark';

/**
 * failed: some check failed. unverified: none failed but the signature was not checked (no key,
 * or no usable one), so nothing vouches for the claims. passed: none failed and the signature
 * held; other skips (an absent optional nbf…) are listed, not alarmed about.
 */
export type Verdict = 'passed' | 'failed' | 'unverified';

export function verdictOf(checks: Check[]): { verdict: Verdict; failed: Check[]; skipped: Check[] } {
  const failed = checks.filter((c) => c.status === 'failed');
  const skipped = checks.filter((c) => c.status === 'skipped');
  const signatureSkipped = skipped.some((c) => c.id === 'signature');
  return {
    verdict: failed.length > 0 ? 'failed' : signatureSkipped ? 'unverified' : 'passed',
    failed,
    skipped,
  };
}

function verdictWords(
  verdict: Verdict,
  checks: Check[],
  failed: Check[],
  skipped: Check[],
): [string, string] {
  const total = checks.length;
  const skippedIds = skipped.map((c) => c.id).join(', ');
  if (verdict === 'failed') {
    const [first, ...rest] = failed;
    return [
      `${failed.length} of ${total} checks failed`,
      `${first!.id}: ${first!.detail}${rest.length > 0 ? ` · also ${rest.map((c) => c.id).join(', ')}` : ''}`,
    ];
  }
  if (verdict === 'unverified') {
    const signature = skipped.find((c) => c.id === 'signature');
    return [
      `No check failed, but the signature was not verified`,
      signature?.detail ?? `Skipped: ${skippedIds}`,
    ];
  }
  return skipped.length === 0
    ? [`All ${total} checks passed`, 'Signature verified; every claim as expected.']
    : [
        `No check failed · ${total - skipped.length} passed, ${skipped.length} skipped`,
        `Skipped: ${skippedIds}, see why below`,
      ];
}

export function VerdictBanner({ report, stale = false }: { report: InspectReport; stale?: boolean }) {
  const { verdict, failed, skipped } = verdictOf(report.checks);
  const [headline, detail] = verdictWords(verdict, report.checks, failed, skipped);
  return (
    <div
      className={`verdict verdict-${verdict}`}
      data-testid="verdict"
      data-verdict={verdict}
      role="status"
      aria-busy={stale}
    >
      <span className="verdict-icon" aria-hidden="true">
        {verdict === 'failed' ? '✗' : verdict === 'unverified' ? '!' : '✓'}
      </span>
      <div className="verdict-text">
        <strong>{headline}</strong>
        <span className="verdict-sub">{detail}</span>
      </div>
    </div>
  );
}

/** One row of a checks or advice list: a status mark (checks only), the id, title and detail. */
interface CheckRowProps {
  item: { id: string; title: string; detail: string };
  testId: string;
  status?: Check['status'];
  level?: Advice['level'];
}

function CheckRow({ item, testId, status, level }: CheckRowProps) {
  const tone = status ?? (level === 'warning' ? 'warning' : 'passed');
  return (
    <li
      className={`check check-${tone}`}
      data-testid={testId}
      {...(status ? { 'data-status': status } : { 'data-level': level })}
    >
      {status ? <StatusMark status={status} /> : null}
      <code className="check-id">{item.id}</code>
      <span className="check-body">
        <span className="check-title">{item.title}</span>
        <span className="check-detail">{item.detail}</span>
      </span>
    </li>
  );
}

/** A panel of check rows under a heading: the checks (in order: the first failure decides) or the advice. */
function CheckPanel({
  heading,
  ordered,
  testId,
  rows,
  listClass,
}: {
  heading: ReactNode;
  ordered: boolean;
  testId: string;
  rows: CheckRowProps[];
  /** A class beside `checks` (the advice's own columns: report.css). */
  listClass?: string;
}) {
  const titleId = useId();
  const List = ordered ? 'ol' : 'ul';
  return (
    <section className="panel" aria-labelledby={titleId}>
      <h2 id={titleId} className="panel-title">
        {heading}
      </h2>
      <List className={listClass ? `checks ${listClass}` : 'checks'} data-testid={testId}>
        {rows.map((r) => (
          <CheckRow key={r.item.id} {...r} />
        ))}
      </List>
    </section>
  );
}

export function ChecksList({ checks, title = 'Checks' }: { checks: Check[]; title?: string }) {
  const rows = checks.map((c) => ({ item: c, status: c.status, testId: `check-${c.id}` }));
  return <CheckPanel heading={title} ordered testId="checks" rows={rows} />;
}

/** The inspector's advice: worth knowing, never part of the verdict. */
export function AdviceList({ advice }: { advice: Advice[] }) {
  if (advice.length === 0) return null;
  const rows = advice.map((a) => ({ item: a, level: a.level, testId: `advice-${a.id}` }));
  const heading = (
    <>
      Advice <span className="muted">(does not change the verdict)</span>
    </>
  );
  return (
    <CheckPanel heading={heading} ordered={false} testId="advice" rows={rows} listClass="checks-advice" />
  );
}

export function DecodedPart({
  title,
  kind,
  value,
}: {
  title: string;
  kind: 'header' | 'payload';
  value: Record<string, unknown> | null;
}) {
  return (
    <section className={`panel decoded decoded-${kind}`} aria-label={`Decoded ${title.toLowerCase()}`}>
      <h2 className="panel-title">
        <span className={`legend-chip legend-${kind}`} aria-hidden="true" />
        {title}
        <span className="panel-spacer" />
        {value ? (
          <CopyButton text={() => JSON.stringify(value, null, 2)} label="Copy JSON" testId={`copy-${kind}`} />
        ) : null}
      </h2>
      {value ? (
        <JsonView value={value} testId={`decoded-${kind}`} />
      ) : (
        <p className="muted">Not decodable: see the structure check.</p>
      )}
    </section>
  );
}
