import { useEffect, useState } from 'react';
import type { LiveRun } from '../../data/conformance';

/** Whole seconds from `nowMs` until `until` (ISO), never below 0. */
export function secondsLeft(until: string, nowMs: number): number {
  return Math.max(0, Math.ceil((Date.parse(until) - nowMs) / 1000));
}

/** The clock, re-read every second while `active` (for a countdown). */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/**
 * What a running suite is doing and waiting for (issue 13, item 6), from its first second: the
 * JWKS URL the bank must trust, whether the bank has fetched it yet, the case under way with
 * the most it can take, and a countdown while the runner waits for a rate-limited refresh.
 */
export function RunActivity({ run }: { run: LiveRun }) {
  const activity = run.activity;
  const until = activity?.until ?? null;
  const now = useNow(until !== null);
  if (activity === null) {
    if (run.phase !== 'started') return null;
    if (run.jwks_url === null) {
      // A notification run serves no JWKS: it only posts to the bank.
      return (
        <p className="cf-activity" role="status" data-testid="conformance-activity" data-kind="starting">
          Starting: posting notifications to <code>{run.notify_url}</code>.
        </p>
      );
    }
    return (
      <p className="cf-activity" role="status" data-testid="conformance-activity" data-kind="starting">
        Starting: serving the runner’s JWKS at <code>{run.jwks_url}</code>. The bank must trust this URL as
        the service’s JWKS and fetch it when the first token arrives.
      </p>
    );
  }
  const fetched =
    activity.jwks_fetches === 0
      ? 'The bank has not fetched the JWKS yet in this run.'
      : `The bank has fetched the JWKS ${activity.jwks_fetches} time${activity.jwks_fetches === 1 ? '' : 's'} in this run.`;
  return (
    <div
      className="cf-activity"
      role="status"
      data-testid="conformance-activity"
      data-kind={activity.kind}
      data-case={activity.case_id}
    >
      <p>
        <strong>
          {activity.kind === 'refresh-wait' ? 'Waiting' : `Case ${run.done + 1} of ${run.total}`}
        </strong>{' '}
        <code>{activity.case_id}</code>: {activity.text}.
      </p>
      <p className="muted">
        {until !== null ? (
          <span data-testid="conformance-countdown" data-left={secondsLeft(until, now)}>
            {secondsLeft(until, now)} s left.{' '}
          </span>
        ) : null}
        <span data-testid="conformance-timeout">
          This case gives up within {seconds(activity.timeout_ms)}.
        </span>{' '}
        {activity.case_id.startsWith('notify.') ? null : (
          <span data-testid="conformance-fetches">{fetched}</span>
        )}
      </p>
    </div>
  );
}
