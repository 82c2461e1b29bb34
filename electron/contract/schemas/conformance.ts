import { z } from 'zod';
import { SandboxSettings } from './sandbox';

/**
 * The conformance suite's report (issue 7; DESIGN.md "Command line" `conformance`): cases run
 * against a bank's own GET /user_auth, /key and /external_id, each with the full exchange kept
 * for export. Tokens sent are included (they are what was tested); private keys never are.
 */

export const CaseStatus = z.enum(['passed', 'failed', 'skipped']);
export type CaseStatus = z.infer<typeof CaseStatus>;

/** One HTTP request the runner sent and what came back (or why nothing did). */
export const CaseExchange = z.object({
  /** What this request was for, e.g. "valid token", "call 3 of 10", "after rotation". */
  label: z.string(),
  at: z.string(),
  request: z.object({
    method: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
  }),
  /** The X-Session-ID sent, decoded (header and claims), when there was a JWT. */
  token: z
    .object({
      header: z.record(z.string(), z.unknown()),
      payload: z.record(z.string(), z.unknown()).nullable(),
    })
    .nullable(),
  response: z
    .object({
      status: z.number().int(),
      headers: z.record(z.string(), z.string()),
      /** The body as text (cut at 64 KiB). */
      body: z.string(),
      truncated: z.boolean(),
    })
    .nullable(),
  /** No (complete) answer: connection refused, timeout, broken answer. */
  error: z.string().nullable(),
  duration_ms: z.number(),
});
export type CaseExchange = z.infer<typeof CaseExchange>;

export const CaseMetrics = z.object({
  count: z.number().int(),
  p50_ms: z.number(),
  p95_ms: z.number(),
  max_ms: z.number(),
  budget_ms: z.number(),
});

export const CaseResult = z.object({
  /** Stable id, e.g. `user_auth.alg-none` (CI systems track cases by it). */
  id: z.string(),
  /** What the case checks, citing the spec section. */
  title: z.string(),
  status: CaseStatus,
  /** What was sent, what came back, what was expected. */
  detail: z.string(),
  /**
   * The valid-token cases: the check of the one answer judge that failed (`status`, `phone`,
   * `budget`…), null when the answer passed; absent for cases the judge does not decide.
   */
  failed_check: z.string().nullable().optional(),
  /** The callback path the case ran against, null for none. */
  route: z.string().nullable(),
  /** The spec sections the case checks, e.g. "2.5, 4.2". */
  spec: z.string(),
  duration_ms: z.number(),
  exchanges: z.array(CaseExchange),
  metrics: CaseMetrics.optional(),
});
export type CaseResult = z.infer<typeof CaseResult>;

/** One listed case and why it is listed (`--expected-failures`). */
const ListedCase = z.object({ id: z.string(), reason: z.string() });

/**
 * A run's cases judged against its expected failures (DESIGN.md "Conformance of a bank's
 * notification endpoints"; the CLI's `--json` member of the same name).
 */
export const ExpectedFailuresVerdict = z.object({
  /** Failed and listed: reported, not failing the run. */
  expected: z.array(ListedCase),
  /** Failed and not listed: these fail the run. */
  unexpected: z.array(z.string()),
  /** Listed but passed: the list can lose these. */
  now_passing: z.array(ListedCase),
  /** Listed but not run (a typo, a renamed case, or skipped). */
  not_run: z.array(ListedCase),
});
export type ExpectedFailuresVerdict = z.infer<typeof ExpectedFailuresVerdict>;

export const ConformanceReport = z.object({
  /** `run` against a bank; `self-check` against a private instance of the console's own bank endpoints. */
  kind: z.enum(['run', 'self-check']),
  /** Empty when the run played only the notification cases. */
  bank_auth_url: z.string(),
  /** The host the `notify.*` cases posted to (issue 27); absent when they did not run. */
  notify_url: z.string().optional(),
  obj: z.string(),
  sub: z.string(),
  /** The URL the bank under test was configured to trust. */
  jwks_url: z.string(),
  /** The kids the runner published (the first key, then the rotated one). */
  kids: z.array(z.string()),
  /** How many times the bank fetched the runner's JWKS during the run. */
  jwks_fetches: z.number().int(),
  started_at: z.string(),
  finished_at: z.string(),
  duration_ms: z.number(),
  passed: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  cases: z.array(CaseResult),
  /** The run's expected failures judged (when it was given some). */
  expected_failures: ExpectedFailuresVerdict.optional(),
});
export type ConformanceReport = z.infer<typeof ConformanceReport>;

/** A base URL the runner sends to: http(s), no query, fragment or credentials. */
const TargetUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  .refine((u) => {
    try {
      const p = new URL(u);
      return !p.search && !p.hash && !p.username && !p.password;
    } catch {
      return false;
    }
  }, 'must have no query, fragment or credentials');

/** Input of `conformance.run`. */
export const ConformanceRunInput = z.object({
  bank_auth_url: TargetUrl,
  obj: z.string().trim().min(1, 'obj must not be empty').max(200),
  sub: z.string().trim().min(1, 'sub must not be empty').max(200),
  /** Where the runner serves its JWKS on 127.0.0.1 (default 7303; 0: any free port). */
  jwks_port: z.number().int().min(0).max(65535).optional(),
});

/** At most this many listed cases: a list of known failures, not a data set. */
export const MAX_EXPECTED_FAILURES = 500;

/**
 * Expected failures as the page sends them: case id → reason (the `--expected-failures` file's
 * content, DESIGN.md).
 */
export const ExpectedFailuresInput = z
  .record(
    z.string().trim().min(1, 'a case id must not be empty').max(200),
    z.string().trim().min(1, 'each listed case needs a reason').max(1000),
  )
  .refine((o) => Object.keys(o).length <= MAX_EXPECTED_FAILURES, {
    error: `at most ${MAX_EXPECTED_FAILURES} listed cases`,
  });

/**
 * Input of `conformance.runNotify` (issue 27 item 4): the `notify.*` cases against the host the
 * service posts notifications to, as `conformance --notify-url` runs them.
 */
export const ConformanceNotifyInput = z.object({
  notify_url: TargetUrl,
  /** The path prefix (spec: /api/svc/notify; the public guide: /api/dcm/notify). */
  prefix: SandboxSettings.shape.notify_path_prefix.optional(),
  /** GET `{probe_url}/{transaction_id}` answers `{"count": N}`: "applied exactly once". */
  probe_url: TargetUrl.optional(),
  expected_failures: ExpectedFailuresInput.optional(),
});
export type ConformanceNotifyInput = z.infer<typeof ConformanceNotifyInput>;

/**
 * What a run is doing right now (issue 13, item 6: the page says from its first second what it
 * waits for): a case under way with its timeout, or a deliberate wait with its end.
 */
export const ConformanceActivity = z.object({
  /** `case`: a case's requests are under way; `refresh-wait`: waiting before sending a token again. */
  kind: z.enum(['case', 'refresh-wait']),
  /** The case it belongs to. */
  case_id: z.string(),
  /** One sentence a person can read, e.g. what the bank must fetch and from where. */
  text: z.string(),
  /** The most this case can still take: every request given up at its limit, every wait waited. */
  timeout_ms: z.number().int(),
  /** When the wait ends (ISO time; `refresh-wait`), for a countdown; null for a case. */
  until: z.string().nullable(),
  /** How many times the bank has fetched the runner's JWKS in this run so far. */
  jwks_fetches: z.number().int(),
});
export type ConformanceActivity = z.infer<typeof ConformanceActivity>;

/** Live progress of a run, one event per phase, per case begun or waited on, and per finished case. */
export const ConformanceProgress = z.object({
  run_id: z.string(),
  kind: z.enum(['run', 'self-check']),
  /** `activity`: what the run does now changed (see `activity`); nothing finished. */
  phase: z.enum(['started', 'activity', 'case', 'finished', 'error']),
  /** Cases in the plan. */
  total: z.number().int(),
  /** Cases finished so far. */
  done: z.number().int(),
  jwks_url: z.string().nullable(),
  bank_auth_url: z.string().nullable(),
  /** Where the `notify.*` cases post (a notification run, or a self-check); absent: none. */
  notify_url: z.string().nullable().optional(),
  /** The case just finished (phase `case`). */
  case: CaseResult.optional(),
  /** The run's error (phase `error`): e.g. the JWKS port is taken. */
  error: z.string().optional(),
  /** What the run is doing now (phase `activity`). */
  activity: ConformanceActivity.optional(),
  passed: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
});
export type ConformanceProgress = z.infer<typeof ConformanceProgress>;

export const ConformanceExport = z.object({
  text: z.string(),
  filename: z.string(),
  mime: z.string(),
});
