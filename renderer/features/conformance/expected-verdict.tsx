import type { ExpectedFailuresVerdict } from '../../../electron/contract/schemas/conformance';
import type { LiveRun } from '../../data/conformance';

/** Failures the run did not expect: all of them, unless the run was given expected failures. */
export function unexpectedFailures(run: Pick<LiveRun, 'failed' | 'expected_failures'>): number {
  return run.expected_failures ? run.expected_failures.unexpected.length : run.failed;
}

/**
 * A run's expected failures judged (DESIGN.md `--expected-failures`): what failed as listed,
 * what is listed but passes now (the list can shrink), what is listed but did not run.
 */
export function ExpectedVerdict({ verdict }: { verdict: ExpectedFailuresVerdict }) {
  const groups = [
    ['expected', 'Expected failures (not failing the run)', verdict.expected],
    ['now-passing', 'Listed but passing now: remove them from the list', verdict.now_passing],
    ['not-run', 'Listed but not run: check the ids', verdict.not_run],
  ] as const;
  return (
    <div className="cf-expected-verdict" data-testid="conformance-expected-verdict">
      {groups.map(([key, title, items]) =>
        items.length === 0 ? null : (
          <div key={key} data-testid={`conformance-expected-${key}`}>
            <strong>{title}</strong>
            <ul>
              {items.map((e) => (
                <li key={e.id}>
                  <code>{e.id}</code>: {e.reason}
                </li>
              ))}
            </ul>
          </div>
        ),
      )}
    </div>
  );
}
