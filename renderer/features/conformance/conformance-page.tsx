import { useState, type FormEvent } from 'react';
import { Toggle } from '../../ui/toggle';
import { CopyButton } from '../../shared/copy-button';
import { ErrorPanel } from '../../shared/error-panel';
import { Field } from '../../shared/field';
import { formatMs } from '../../shared/format';
import { PageHead } from '../../shared/page-head';
import { CaseList } from './case-list';
import { RunActivity } from './run-activity';
import { TrustRunnerJwks } from './trust-runner';
import { NotifySection } from './notify-section';
import { ExpectedVerdict, unexpectedFailures } from './expected-verdict';
import { checkForm, cliCommand, inputProps, jwksUrlFor, type FormErrors } from './conformance-form';
import { useConformanceStore } from './conformance-store';
import { useActiveEnvironment } from '../../data/environments';
import {
  useExportReport,
  useLiveRun,
  useRunConformance,
  useSelfCheck,
  type LiveRun,
} from '../../data/conformance';
import './conformance.css';
import { Allowed } from '../../shared/allowed';
import { CutValue } from '../../shared/cut-value';

/**
 * Conformance (issue 7): the service's side played against the bank's own callbacks, good and
 * bad tokens, required fields, the 1 s budget and a key rotation; each case appears as it
 * finishes. Self-check runs the same suite against a private copy of the console's own bank.
 */
export function ConformancePage() {
  const live = useLiveRun();
  const run = live.data ?? null;
  const running = run !== null && (run.phase === 'started' || run.phase === 'case');
  return (
    <div
      className="conformance-page"
      data-testid="conformance-page"
      data-state={live.isPending ? 'loading' : 'ready'}
    >
      <PageHead title="Conformance">
        Test your bank’s own callbacks the way the service will call them: a valid X-Session-ID and eleven
        kinds of bad one on each of GET /user_auth, /key and /external_id, the spec’s required fields, the 1 s
        budget, and a key rotation. Then its notification endpoints the way the service delivers: repeats,
        concurrent copies, lost answers and bodies to refuse. Green means the service will be answered right;
        red names the fault.
      </PageHead>
      <div className="cf-grid">
        <div className="cf-forms">
          <RunForm running={running} />
          <NotifySection busy={running} />
        </div>
        <RunPanel run={run} running={running} />
      </div>
    </div>
  );
}

/** The form's values: obj/sub fall back to the active environment's defaults until typed. */
function useFormValues() {
  const stored = useConformanceStore();
  const env = useActiveEnvironment();
  return {
    ...stored,
    obj: stored.typed.obj ? stored.obj : stored.obj || (env?.default_obj ?? ''),
    sub: stored.typed.sub ? stored.sub : stored.sub || (env?.default_sub ?? ''),
  };
}

function RunForm({ running }: { running: boolean }) {
  const values = useFormValues();
  const runMutation = useRunConformance();
  const selfCheck = useSelfCheck();
  const [errors, setErrors] = useState<FormErrors>({});
  const busy = running || runMutation.isPending || selfCheck.isPending;
  const jwksUrl = jwksUrlFor(values.jwksPort);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const checked = checkForm(values);
    setErrors(checked.errors);
    if (checked.input) {
      selfCheck.reset();
      runMutation.mutate(checked.input);
    }
  };
  const field = (name: 'bankAuthUrl' | 'obj' | 'sub' | 'jwksPort') => ({
    className: 'input',
    ...inputProps(name, values[name], errors[name], (v) => {
      values.setField(name, v);
      if (errors[name]) setErrors({ ...errors, [name]: undefined });
    }),
  });

  return (
    <section className="panel" aria-labelledby="cf-form-title">
      <h2 id="cf-form-title" className="panel-title">
        Bank under test
      </h2>
      <form className="panel-body cf-form" onSubmit={submit} noValidate data-testid="conformance-form">
        <Field
          id="cf-bankAuthUrl"
          label="Bank auth URL"
          hint="{bank_auth_url}: /user_auth, /key, /external_id are appended"
          error={errors.bankAuthUrl}
        >
          <input
            {...field('bankAuthUrl')}
            type="url"
            placeholder="https://staging.bank.example/auth"
            data-testid="conformance-bank-url"
          />
        </Field>
        <div className="form-grid-2">
          <Field id="cf-obj" label="obj" hint="a customer your bank knows" error={errors.obj}>
            <input {...field('obj')} placeholder="DE89370400440532013000" data-testid="conformance-obj" />
          </Field>
          <Field id="cf-sub" label="sub" hint="the sub it expects with that obj" error={errors.sub}>
            <input {...field('sub')} placeholder="ops@bank.example" data-testid="conformance-sub" />
          </Field>
        </div>
        <Field
          id="cf-jwksPort"
          label="JWKS port"
          hint="on 127.0.0.1; 0 picks a free port"
          error={errors.jwksPort}
          note={
            jwksUrl ? (
              <>
                Configure the bank under test to trust{' '}
                <CutValue value={jwksUrl} what="JWKS URL" testId="conformance-jwks-url" />
              </>
            ) : (
              'A free port is chosen at run time: the bank must then be told the URL the run prints.'
            )
          }
        >
          <input
            {...field('jwksPort')}
            inputMode="numeric"
            className="input cf-port"
            data-testid="conformance-jwks-port"
          />
        </Field>
        <TrustRunnerJwks port={jwksUrl ? Number(values.jwksPort) : null} disabled={busy} />
        <RunFormActions
          busy={busy}
          jwksUrl={jwksUrl}
          runMutation={runMutation}
          selfCheck={selfCheck}
          cli={() => cliCommand(values)}
        />
      </form>
    </section>
  );
}

function RunPanel({ run, running }: { run: LiveRun | null; running: boolean }) {
  const setFailedOnly = useConformanceStore((s) => s.setFailedOnly);
  const failedOnly = useConformanceStore((s) => s.failedOnly);
  if (!run) return <RunEmpty />;
  const verdict = running
    ? 'running'
    : run.phase === 'error'
      ? 'error'
      : unexpectedFailures(run) > 0
        ? 'failed'
        : 'passed';
  return (
    <section
      className="panel"
      aria-labelledby="cf-run-title"
      data-testid="conformance-run-panel"
      data-run-id={run.run_id}
    >
      <h2 id="cf-run-title" className="panel-title">
        {run.kind === 'self-check' ? 'Self-check' : 'Run'}
        <span className="panel-note cf-run-urls">
          {[run.bank_auth_url, run.notify_url].filter((u, i, all) => u && all.indexOf(u) === i).join(' · ')}
        </span>
        <span className="panel-spacer" />
        <Toggle
          className="cf-filter"
          checked={failedOnly}
          onChange={setFailedOnly}
          testId="conformance-failed-only"
        >
          {' '}
          failed only
        </Toggle>
      </h2>
      <div className="panel-body">
        <RunSummary run={run} verdict={verdict} />
        {running ? <RunActivity run={run} /> : null}
        {run.error ? <p className="text-fail">{run.error}</p> : null}
        {run.expected_failures ? <ExpectedVerdict verdict={run.expected_failures} /> : null}
        <RunExports run={run} running={running} />
      </div>
      <CaseList cases={run.cases} expected={run.expected_failures?.expected ?? []} />
    </section>
  );
}

/** Before the first run: what to try first. */
function RunEmpty() {
  return (
    <div className="empty" data-testid="conformance-empty">
      <h2>No run yet</h2>
      <ul>
        <li>
          <strong>Self-check</strong> first: it shows what a passing bank looks like, callbacks and
          notifications, in seconds.
        </li>
        <li>
          Then point your bank’s service JWKS at the runner’s URL, give a customer it knows, and{' '}
          <strong>Run</strong>.
        </li>
      </ul>
      <p className="empty-note">
        The same suite runs in CI: copy the command, add --junit for the CI report.
      </p>
    </div>
  );
}

type Verdict = 'running' | 'error' | 'failed' | 'passed';

/** The progress bar and the one-line verdict with its counts. */
function RunSummary({ run, verdict }: { run: LiveRun; verdict: Verdict }) {
  const pct = run.total > 0 ? Math.round((run.done / run.total) * 100) : 0;
  return (
    <>
      <div
        className={`cf-progress cf-progress-${verdict}`}
        role="progressbar"
        aria-label="Cases finished"
        aria-valuemin={0}
        aria-valuemax={run.total}
        aria-valuenow={run.done}
        aria-valuetext={`${run.done} of ${run.total} cases`}
        data-testid="conformance-progress"
        data-done={run.done}
        data-total={run.total}
      >
        <span className="cf-progress-fill" style={{ width: `${pct}%` }} />
      </div>
      <div
        className="cf-summary"
        role="status"
        data-testid="conformance-summary"
        data-state={verdict}
        data-passed={run.passed}
        data-failed={run.failed}
        data-skipped={run.skipped}
      >
        <strong className={verdict === 'passed' ? 'text-pass' : verdict === 'running' ? '' : 'text-fail'}>
          {verdict === 'running'
            ? `Running: ${run.done} of ${run.total}`
            : verdict === 'error'
              ? 'The run stopped'
              : verdict === 'failed'
                ? `${unexpectedFailures(run)} failed`
                : run.failed > 0
                  ? `No unexpected failure (${run.failed} expected)`
                  : 'Every case passed'}
        </strong>
        <span>
          {run.passed} passed · {run.failed} failed · {run.skipped} skipped
          {run.duration_ms !== null ? ` · ${formatMs(run.duration_ms)}` : ''}
        </span>
        {run.jwks_url ? (
          <span className="muted">
            JWKS <code title={run.jwks_url}>{run.jwks_url}</code>
          </span>
        ) : null}
      </div>
    </>
  );
}

/** The finished run's report, as JSON, JUnit XML or a summary to copy. */
function RunExports({ run, running }: { run: LiveRun; running: boolean }) {
  const exporter = useExportReport();
  return (
    <>
      <div className="form-actions">
        <button
          type="button"
          className="btn btn-small"
          disabled={running || exporter.isPending || run.phase !== 'finished'}
          onClick={() => exporter.mutate('json')}
          data-testid="conformance-export-json"
        >
          Export report (JSON)
        </button>
        <button
          type="button"
          className="btn btn-small"
          disabled={running || exporter.isPending || run.phase !== 'finished'}
          onClick={() => exporter.mutate('junit')}
          data-testid="conformance-export-junit"
        >
          Export JUnit XML
        </button>
        <CopyButton
          text={() =>
            JSON.stringify({
              passed: run.passed,
              failed: run.failed,
              cases: run.cases.map((c) => ({
                id: c.id,
                title: c.title,
                status: c.status,
                detail: c.detail,
              })),
              // As the CLI's --json adds it when the run had expected failures.
              ...(run.expected_failures ? { expected_failures: run.expected_failures } : {}),
            })
          }
          label="Copy summary JSON"
          testId="conformance-copy-summary"
        />
      </div>
      {exporter.error ? (
        <ErrorPanel title="Export failed" error={exporter.error} testId="conformance-export-error" />
      ) : null}
    </>
  );
}

/** Run, Self-check, the copies, and why a run could not start. */
function RunFormActions({
  busy,
  jwksUrl,
  runMutation,
  selfCheck,
  cli,
}: {
  busy: boolean;
  jwksUrl: string | null;
  runMutation: ReturnType<typeof useRunConformance>;
  selfCheck: ReturnType<typeof useSelfCheck>;
  cli: () => string;
}) {
  return (
    <>
      <div className="form-actions">
        <Allowed method="conformance.run">
          <button type="submit" className="btn btn-primary" disabled={busy} data-testid="conformance-run">
            {runMutation.isPending ? 'Running…' : 'Run'}
          </button>
        </Allowed>
        <Allowed method="conformance.selfCheck">
          <button
            type="button"
            className="btn"
            disabled={busy}
            onClick={() => {
              runMutation.reset();
              selfCheck.mutate();
            }}
            data-testid="conformance-self-check"
            title="Run the callback and notification cases against a private copy of the console’s own bank endpoints"
          >
            {selfCheck.isPending ? 'Self-checking…' : 'Self-check'}
          </button>
        </Allowed>
        {jwksUrl ? (
          <CopyButton text={() => jwksUrl} label="Copy JWKS URL" testId="conformance-copy-jwks" />
        ) : null}
        <CopyButton text={cli} label="Copy as CI command" testId="conformance-copy-cli" />
      </div>
      <p className="muted cf-note">
        Self-check needs nothing configured: it starts its own bank endpoints on a free port with one test
        customer, trusting the runner’s keys, plays the callback cases and the notification cases (with a
        probe over its own store: applied exactly once), and leaves the live bank alone.
      </p>
      {runMutation.error ? (
        <ErrorPanel title="The run could not start" error={runMutation.error} testId="conformance-error" />
      ) : null}
      {selfCheck.error ? (
        <ErrorPanel
          title="The self-check could not start"
          error={selfCheck.error}
          testId="conformance-error"
        />
      ) : null}
    </>
  );
}
