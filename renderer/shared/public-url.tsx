/**
 * The bank endpoints' public URL as the Bank page and the walkthrough both show it (issue 14):
 * where it comes from, what to register with the service, and what a probe from outside found.
 */
import type { ProbeResult, TunnelStatus } from '../../electron/contract/schemas/tunnel';
import { DataTable } from '../ui/data-table';
import { CopyButton } from './copy-button';

/** Where the public URL in force comes from, in words. */
export const PUBLIC_URL_SOURCE: Record<NonNullable<TunnelStatus['public_url_source']>, string> = {
  flag: 'serve --public-url',
  tunnel: 'the running tunnel',
  environment: 'the active environment',
  profile: 'saved on this page',
};

const PROBE_WORDING: Record<ProbeResult['outcome'], string> = {
  reachable: 'Reachable from outside',
  unreachable: 'Unreachable',
  foreign: 'Something else answers',
  no_public_url: 'Nothing to test',
};

/** What to register with the service, each URL with a copy button (the Bank page and the walkthrough). */
export function RegisterTable({
  register,
  testId = 'bank-register',
}: {
  register: NonNullable<TunnelStatus['register']>;
  testId?: string;
}) {
  const rows = [
    { id: 'auth', label: 'bank_auth_url', url: register.bank_auth_url },
    ...register.notification_urls.map((url, i) => ({ id: `notify-${i}`, label: 'notification', url })),
  ];
  return (
    <>
      <p className="muted">Register these with the service (spec 4.2, 4.3):</p>
      <UrlTable rows={rows} testId={testId} copyTestId={(id) => `${testId}-${id}-copy`} />
    </>
  );
}

/** One URL to give the service: what it is for, and the URL. */
export interface UrlRow {
  id: string;
  label: string;
  url: string;
}

/**
 * URLs to give the service, each named by its row and with a copy button (the Bank page's
 * listener URLs, what to register with the public URL).
 *
 * @example
 * <UrlTable rows={[{ id: 'auth', label: 'bank_auth_url', url }]} copyTestId={(id) => `url-${id}-copy`} />
 */
export function UrlTable({
  rows,
  testId,
  codeTestId,
  copyTestId,
}: {
  rows: readonly UrlRow[];
  testId?: string;
  /** The test id of a row's URL, where a test reads it. */
  codeTestId?: (id: string) => string;
  copyTestId: (id: string) => string;
}) {
  return (
    <DataTable
      rows={rows}
      rowKey={(r) => r.id}
      columns={[
        { header: 'for', rowHeader: true, cell: (r) => r.label },
        { header: 'URL', cell: (r) => <code data-testid={codeTestId?.(r.id)}>{r.url}</code> },
      ]}
      actions={(r) => <CopyButton text={() => r.url} testId={copyTestId(r.id)} />}
      showHeader={false}
      className="bank-urls"
      testId={testId}
    />
  );
}

/** A probe's outcome in words: reachable with the round trip, or why not (the Bank page and the walkthrough). */
export function ProbeResultLine({
  probe,
  testId = 'bank-probe-result',
}: {
  probe: ProbeResult;
  testId?: string;
}) {
  return (
    <p
      className={`field-note probe-${probe.outcome}`}
      role="status"
      data-testid={testId}
      data-outcome={probe.outcome}
    >
      <strong>{PROBE_WORDING[probe.outcome]}</strong>
      {probe.rtt_ms !== null ? ` (${probe.rtt_ms} ms)` : ''}: {probe.detail}
    </p>
  );
}
