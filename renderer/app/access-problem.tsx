/** The full-page answer when browser mode has no usable access token: never a blank page. */
export function AccessProblem({ reason, detail }: { reason: 'missing' | 'rejected'; detail?: string }) {
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
          The token guards the console’s local API from other web pages and programs on this machine. It is
          removed from the address bar; other tabs of this browser get in by a cookie until the host restarts.
        </p>
      </div>
    </main>
  );
}
