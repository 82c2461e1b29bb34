import { PageHead } from '../../shared/page-head';
import { EnvSummary } from '../../shared/env-summary';
import { ComposerHistory } from './composer-history';
import { ClaimsForm } from './claims-form';
import { ComposerOutput } from './signed-output';
import { useComposer } from './use-composer';
import './composer.css';

/** The JWT Composer: the claims form beside the signed token, the history below. */
export function ComposerPage() {
  const c = useComposer();
  return (
    <div className="composer-page" data-testid="composer-page" data-state={c.keys.data ? 'ready' : 'loading'}>
      <PageHead title="JWT Composer">
        The bank’s JWT for <code>CX-Authorization</code> (spec 2.4): <code>flow</code> = sign-in,{' '}
        <code>obj</code>, <code>sub</code>, <code>iat</code>, <code>exp</code>, signed with a key from the
        vault, or by the HSM or KMS that holds it.
      </PageHead>
      <EnvSummary env={c.env} />
      <div className="composer-grid">
        <ClaimsForm c={c} />
        <ComposerOutput c={c} />
      </div>
      <ComposerHistory />
    </div>
  );
}
