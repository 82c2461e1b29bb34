import type { JwksStatus } from '../../electron/contract/schemas/bank';

/**
 * Rows of a `kv` list naming what the service JWKS held that the console does not use as is
 * (DESIGN.md "Bank endpoints"): each key left out of the key set with its reason (it breaks the
 * RSA key rules, or is unusable), and each kid that appears more than once. Events stored before
 * these were recorded have neither: nothing is shown.
 */
export function JwksKeyReport({ jwks, testId }: { jwks: JwksStatus; testId: string }) {
  const rejected = jwks.rejected ?? [];
  const duplicates = jwks.duplicates ?? [];
  return (
    <>
      {rejected.length > 0 ? (
        <>
          <dt>left out</dt>
          <dd data-testid={`${testId}-rejected`}>
            <ul className="jwks-rejected">
              {rejected.map((r, i) => (
                <li key={`${r.kid ?? ''}-${i}`} className="text-fail">
                  {r.kid === null ? (
                    <span className="muted">a key without kid</span>
                  ) : (
                    <code className="kid">{r.kid}</code>
                  )}
                  : {r.reason}
                </li>
              ))}
            </ul>
          </dd>
        </>
      ) : null}
      {duplicates.length > 0 ? (
        <>
          <dt>duplicate kids</dt>
          <dd data-testid={`${testId}-duplicates`}>
            {duplicates.map((k) => (
              <code key={k} className="kid">
                {k}
              </code>
            ))}
            <span className="muted">
              {duplicates.length === 1 ? 'appears' : 'appear'} more than once in the JWKS: a token with{' '}
              {duplicates.length === 1 ? 'this kid' : 'one of these kids'} is tried against every key under it
            </span>
          </dd>
        </>
      ) : null}
    </>
  );
}
