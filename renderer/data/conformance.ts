/**
 * Conformance runs as server state (STYLE.md 7): the run on screen (the last report, then live
 * `conformance.progressed` events folded into it), starting runs, exports and the runner's JWKS.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MethodInput } from '../../electron/contract';
import type {
  CaseResult,
  ConformanceActivity,
  ConformanceProgress,
  ConformanceReport,
  ExpectedFailuresVerdict,
} from '../../electron/contract/schemas/conformance';
import { useApi, useLiveEvent } from '../api/client-context';
import { saveTextFile } from '../shared/download';

/** Query keys of the conformance page. */
export const conformanceKeys = {
  all: ['conformance'] as const,
  /** The run on screen: the last report at first, then each `conformance.progressed` appends to it. */
  live: () => [...conformanceKeys.all, 'live'] as const,
};

/** The run on screen: live while it runs, the report once it has finished. */
export interface LiveRun {
  run_id: string;
  kind: ConformanceReport['kind'];
  phase: 'started' | 'case' | 'finished' | 'error';
  /** What the run is doing and waiting for now; null between cases and once it has ended. */
  activity: ConformanceActivity | null;
  total: number;
  done: number;
  cases: CaseResult[];
  jwks_url: string | null;
  bank_auth_url: string | null;
  /** Where the `notify.*` cases post (a notification run or a self-check); null: none ran. */
  notify_url: string | null;
  /** The run's expected failures judged (a notification run given some); null otherwise. */
  expected_failures: ExpectedFailuresVerdict | null;
  error: string | null;
  passed: number;
  failed: number;
  skipped: number;
  duration_ms: number | null;
}

export function fromReport(report: ConformanceReport, runId = 'last'): LiveRun {
  return {
    run_id: runId,
    kind: report.kind,
    phase: 'finished',
    activity: null,
    total: report.cases.length,
    done: report.cases.length,
    cases: report.cases,
    // A notification run serves no JWKS and calls no callback: '' in the report, nothing shown.
    jwks_url: report.jwks_url || null,
    bank_auth_url: report.bank_auth_url || null,
    notify_url: report.notify_url ?? null,
    expected_failures: report.expected_failures ?? null,
    error: null,
    passed: report.passed,
    failed: report.failed,
    skipped: report.skipped,
    duration_ms: report.duration_ms,
  };
}

/** Folds one progress event into the run on screen. */
export function applyProgress(old: LiveRun | null | undefined, p: ConformanceProgress): LiveRun {
  const same = old && old.run_id === p.run_id ? old : null;
  let cases = same?.cases ?? [];
  if (p.case && !cases.some((c) => c.id === p.case!.id)) cases = [...cases, p.case];
  return {
    run_id: p.run_id,
    kind: p.kind,
    // An activity changes what the run is doing, not where it is.
    phase: p.phase === 'activity' ? (same?.phase ?? 'started') : p.phase,
    activity: p.phase === 'activity' ? (p.activity ?? null) : null,
    total: p.total || (same?.total ?? 0),
    done: Math.max(p.done, cases.length),
    cases,
    jwks_url: p.jwks_url ?? same?.jwks_url ?? null,
    bank_auth_url: p.bank_auth_url ?? same?.bank_auth_url ?? null,
    notify_url: p.notify_url ?? same?.notify_url ?? null,
    expected_failures: null,
    error: p.error ?? null,
    passed: p.passed,
    failed: p.failed,
    skipped: p.skipped,
    duration_ms: same?.duration_ms ?? null,
  };
}

export function useLiveRun() {
  const api = useApi();
  const queryClient = useQueryClient();
  useLiveEvent('conformance.progressed', (p) =>
    queryClient.setQueryData<LiveRun | null>(conformanceKeys.live(), (old) => applyProgress(old, p)),
  );
  return useQuery({
    queryKey: conformanceKeys.live(),
    queryFn: async () => {
      const report = await api.conformance.lastReport();
      return report ? fromReport(report) : null;
    },
    staleTime: Infinity,
  });
}

/** Run or self-check: the report replaces the live run when it arrives (events may lag it). */
function useRunMutation<I>(fn: (input: I) => Promise<ConformanceReport>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (report) =>
      queryClient.setQueryData<LiveRun | null>(conformanceKeys.live(), (old) => ({
        ...fromReport(report, old?.run_id),
      })),
  });
}

export function useRunConformance() {
  const api = useApi();
  return useRunMutation((input: MethodInput<'conformance.run'>) => api.conformance.run(input));
}

/** Issue 27 item 4: the `notify.*` cases against the bank's notification endpoints. */
export function useRunNotify() {
  const api = useApi();
  return useRunMutation((input: MethodInput<'conformance.runNotify'>) => api.conformance.runNotify(input));
}

export function useSelfCheck() {
  const api = useApi();
  return useRunMutation((_: void) => api.conformance.selfCheck());
}

export function useExportReport() {
  const api = useApi();
  return useMutation({
    mutationFn: async (format: 'json' | 'junit') => {
      const out = await api.conformance.export({ format });
      saveTextFile(out.text, out.filename, out.mime);
      return out;
    },
  });
}

/**
 * Issue 13 item 6: the console's own bank trusts the runner's JWKS (conformance.trustRunnerJwks),
 * and the change can be put back (bank.setServiceJwksUrl with what it replaced). The Bank page
 * follows through `bank.changed`.
 */
export function useTrustRunnerJwks() {
  const api = useApi();
  return useMutation({
    mutationFn: (jwksPort: number) => api.conformance.trustRunnerJwks({ jwks_port: jwksPort }),
  });
}

export function usePutBackBankJwks() {
  const api = useApi();
  return useMutation({
    mutationFn: (setting: string | null) => api.bank.setServiceJwksUrl({ url: setting }),
  });
}
