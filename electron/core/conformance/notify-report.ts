/**
 * One report for a run that played the notification cases (issue 27): beside the callback cases
 * when `--bank-auth-url` was given too, else alone (the callback fields then empty).
 */
import type { CaseResult, ConformanceReport } from '../../contract/schemas/conformance';

/**
 * `callbacks` (null: none ran) with the `notify.*` cases after its own, counted again.
 *
 * @example
 * const report = withNotifyCases(callbackReport, notifyCases, { notifyUrl, startedAt, finishedAt });
 */
export function withNotifyCases(
  callbacks: ConformanceReport | null,
  cases: CaseResult[],
  run: { notifyUrl: string; startedAt: number; finishedAt: number },
): ConformanceReport {
  const all = [...(callbacks?.cases ?? []), ...cases];
  const count = (s: CaseResult['status']) => all.filter((c) => c.status === s).length;
  const startedAt = callbacks ? Date.parse(callbacks.started_at) : run.startedAt;
  return {
    kind: callbacks?.kind ?? 'run',
    bank_auth_url: callbacks?.bank_auth_url ?? '',
    notify_url: run.notifyUrl,
    obj: callbacks?.obj ?? '',
    sub: callbacks?.sub ?? '',
    jwks_url: callbacks?.jwks_url ?? '',
    kids: callbacks?.kids ?? [],
    jwks_fetches: callbacks?.jwks_fetches ?? 0,
    started_at: new Date(startedAt).toISOString(),
    finished_at: new Date(run.finishedAt).toISOString(),
    duration_ms: run.finishedAt - startedAt,
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    cases: all,
  };
}
