import { useState } from 'react';
import type { ScenarioCase, ScenarioReport } from '../../../electron/contract/schemas/scenario';
import { useRunScenario, useScenarioFiles, useScenarioFolder } from '../../data/scenarios';
import { SERVICE_LADDER_MAX_ATTEMPTS, type Delivery } from '../../../electron/contract/schemas/delivery';
import { useScenarioDelivery } from '../../data/deliveries';
import { progressOf, progressWords } from '../../shared/delivery-model';
import { formatClockMs } from '../../shared/format';
import { ErrorPanel } from '../../shared/error-panel';
import { Loaded } from '../../ui/loaded';
import { Page, RefreshButton } from '../../ui/page';
import { TextField } from '../../ui/text-field';
import './scenarios.css';
import { Allowed } from '../../shared/allowed';
import { useMayCall, useTeamSession } from '../../data/app';

/**
 * Scenarios (issue 28; DESIGN.md "Scenarios"): the scenario files of a folder the engineer picks
 * (their repository's), each checked as `scenario run` checks it; one runs against the active
 * environment's bank (a private instance of the console's own bank with its customers, behaviours
 * and forward setting) and its report shows here: the same verdicts the CLI and CI give.
 */
export function ScenariosPage() {
  const { folder: chosen, setFolder } = useScenarioFolder();
  const [draft, setDraft] = useState(chosen);
  // Listing a folder reads the serving machine's disk: an admin's on a hub (team-roles.ts). A
  // member who may not is not sent a 403 for a folder remembered from another session, so the
  // folder is read only once the session (and so the role) is known; a console that cannot say
  // (its session call failed) is no hub, as for useMayCall. Once answered, it stays known.
  const mayList = useMayCall('scenario.list');
  const session = useTeamSession();
  const sessionKnown = session.isFetched;
  const folder = mayList && sessionKnown ? chosen : '';
  const files = useScenarioFiles(folder);
  const run = useRunScenario();
  const [ran, setRan] = useState<string | null>(null);
  const delivering = useScenarioDelivery(run.isPending);
  const state = folder === '' ? 'ready' : files.error ? 'error' : files.data ? 'ready' : 'loading';
  return (
    <Page
      className="scenarios-page"
      testId="scenarios-page"
      state={state}
      title="Scenarios"
      actions={
        folder ? <RefreshButton onClick={() => void files.refetch()} testId="scenarios-refresh" /> : null
      }
      intro={
        <>
          Flows your team keeps in git as files: run one against the active environment’s bank with fresh
          tokens and transaction_ids, as <code>dets-console scenario run</code> does in CI.
        </>
      }
    >
      <Allowed method="scenario.list">
        <form
          className="scenarios-folder"
          onSubmit={(e) => {
            e.preventDefault();
            setFolder(draft.trim());
          }}
        >
          <TextField
            id="scenarios-folder"
            label="Folder"
            hint="the folder of scenario files (*.json), e.g. your repository’s scenarios/"
            value={draft}
            onChange={setDraft}
            mono
          />
          <button type="submit" className="btn" data-testid="scenarios-open" disabled={draft.trim() === ''}>
            Open
          </button>
        </form>
      </Allowed>
      {!mayList ? (
        <p className="muted" data-testid="scenarios-admin-only">
          Scenario files live on the hub’s machine: listing and running them from here needs an admin of this
          hub. <code>dets-console scenario run</code> runs them from a checkout.
        </p>
      ) : folder === '' ? (
        <p className="muted">Choose a folder to list its scenarios.</p>
      ) : (
        <Loaded
          query={files}
          errorTitle="The folder cannot be listed"
          errorTestId="scenarios-error"
          loading="Reading…"
        >
          {(listing) => (
            <table className="data-table scenarios-files" data-testid="scenarios-files">
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Scenario</th>
                  <th scope="col">Steps</th>
                  <th scope="col" aria-label="Actions" />
                </tr>
              </thead>
              <tbody>
                {listing.files.length === 0 ? (
                  <tr>
                    <td colSpan={4} className="muted">
                      No *.json file in {listing.folder}.
                    </td>
                  </tr>
                ) : null}
                {listing.files.map((f) => (
                  <tr key={f.file} data-testid={`scenario-file-${f.file}`}>
                    <th scope="row">
                      <code>{f.file}</code>
                    </th>
                    <td>{f.error ? <span className="scenario-file-error">{f.error}</span> : f.name}</td>
                    <td>{f.error ? '–' : f.steps}</td>
                    <td>
                      <Allowed method="scenario.run">
                        <button
                          type="button"
                          className="btn btn-small"
                          disabled={f.error !== null || run.isPending}
                          onClick={() => {
                            setRan(f.file);
                            run.mutate({ folder: listing.folder, file: f.file });
                          }}
                          data-testid={`scenario-run-${f.file}`}
                        >
                          {run.isPending && ran === f.file ? 'Running…' : 'Run'}
                        </button>
                      </Allowed>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Loaded>
      )}
      {run.isPending ? <RunProgress file={ran} delivery={delivering} /> : null}
      {run.error ? (
        <ErrorPanel title="The scenario did not run" error={run.error} testId="scenario-run-error" />
      ) : null}
      {run.data ? <ScenarioReportView report={run.data} file={ran} /> : null}
    </Page>
  );
}

/**
 * A run in progress (issue 27 item 4): a notification step on the service's ladder can take ~4
 * minutes, so the step's delivery shows as it goes (which notification, attempt n of 10, the next
 * attempt's time), from the run's `sandbox.attempted` events.
 */
function RunProgress({ file, delivery }: { file: string | null; delivery: Delivery | null }) {
  return (
    <p className="muted scenario-progress" role="status" data-testid="scenario-progress">
      Running <code>{file}</code>
      {delivery ? (
        <>
          {' '}
          · notification step <strong>{delivery.event}</strong> <code>{delivery.transaction_id}</code>:{' '}
          <span data-testid="scenario-progress-delivery" data-state={delivery.state}>
            {progressWords(progressOf(delivery, SERVICE_LADDER_MAX_ATTEMPTS), formatClockMs)}
          </span>
        </>
      ) : (
        '…'
      )}
    </p>
  );
}

const MARK: Record<ScenarioCase['status'], string> = {
  passed: '✓',
  failed: '✗',
  skipped: '–',
  'expected-failure': '!',
};

/** A run's report: the counts, then each step with its verdict and detail. */
function ScenarioReportView({ report, file }: { report: ScenarioReport; file: string | null }) {
  return (
    <section
      className="panel scenario-report"
      aria-label="Report"
      data-testid="scenario-report"
      data-failed={report.failed}
      data-passed={report.passed}
    >
      <h2 className="panel-title">
        {report.scenario} <span className="panel-note">{file}</span>
      </h2>
      <p data-testid="scenario-report-counts">
        {report.passed} passed, {report.failed} failed, {report.skipped} skipped in{' '}
        {Math.round(report.duration_ms).toLocaleString('en')} ms
      </p>
      <ol className="scenario-cases">
        {report.cases.map((c) => (
          <li
            key={c.id}
            className={`scenario-case is-${c.status}`}
            data-testid={`scenario-case-${c.id}`}
            data-status={c.status}
          >
            <span className="scenario-case-mark" aria-hidden="true">
              {MARK[c.status]}
            </span>{' '}
            <code>{c.id}</code> <span className="scenario-case-status">{c.status}</span> — {c.title}
            <p className="scenario-case-detail">{c.detail}</p>
          </li>
        ))}
      </ol>
    </section>
  );
}
