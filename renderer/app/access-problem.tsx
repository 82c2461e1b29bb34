import { useEffect } from 'react';
import { onNewAccessToken } from '../api/access-token';

const reload = () => window.location.reload();

/**
 * The full-page answer when browser mode has no usable access token: never a blank page. While
 * it shows, opening the access link in another tab of this origin stores a new token there; this
 * page hears it (`storage` event) and reloads with it (`onNewToken`, replaceable in tests).
 */
export function AccessProblem({
  reason,
  detail,
  onNewToken = reload,
}: {
  reason: 'missing' | 'rejected';
  detail?: string;
  onNewToken?: () => void;
}) {
  useEffect(() => onNewAccessToken(window, () => onNewToken()), [onNewToken]);
  return (
    <main className="access-problem" data-testid="access-problem" data-reason={reason}>
      <div className="access-problem-card">
        <h1>
          <span className="brand-mark" aria-hidden="true">
            DETS
          </span>{' '}
          Console needs its access link
        </h1>
        <p role="alert">
          {reason === 'missing'
            ? 'This page was opened without an access token.'
            : 'The console host refused this page’s access token. It probably restarted, which issues a new one.'}
        </p>
        {detail ? <p className="muted">The host said: {detail}</p> : null}
        <p>
          Open the URL printed by <code>dets-console serve</code>: it carries the access token, e.g.
        </p>
        <pre className="access-problem-example">
          {'$ npx dets-console serve\n'}
          <span className="muted">{'DETS Console: http://127.0.0.1:7300/?token=3f9c…'}</span>
        </pre>
        <p className="muted">
          The token guards the console’s local API from other web pages and programs on this machine. The page
          keeps it for this address only (never in a cookie) and removes it from the address bar; every other
          tab on this address then works without the link until the host restarts. Once the link is open in
          any tab, this one comes back by itself.
        </p>
      </div>
    </main>
  );
}
