import type { Counterparty } from '../../../electron/contract/schemas/sandbox';
import { CopyButton } from '../../shared/copy-button';
import { DisclosureButton } from '../../shared/disclosure-button';
import { BankUrlsForm } from './bank-urls-form';
import { shortGuid } from '../../shared/format';
import { NotifyForm } from './notify-form';
import { OnboardForm } from './onboard-form';
import { useSandboxStore } from './sandbox-store';
import { DataTable, timeColumn, type Column } from '../../ui/data-table';
import { SignInForm } from './sign-in-form';
import { Allowed } from '../../shared/allowed';

const VIA: Record<Counterparty['jwks'][number]['via'], string> = {
  onboarding: 'onboarding',
  post: 'POST …/jwk',
  put: 'PUT …/jwk/{guid}',
};

type RegisteredJwk = Counterparty['jwks'][number];

const JWK_COLUMNS: ReadonlyArray<Column<RegisteredJwk>> = [
  { header: 'jwk_guid', cell: (j) => <code title={j.jwk_guid}>{shortGuid(j.jwk_guid)}</code> },
  {
    header: 'kid',
    cell: (j) =>
      typeof j.jwk.kid === 'string' ? <code>{j.jwk.kid}</code> : <span className="muted">none</span>,
  },
  { header: 'via', cell: (j) => VIA[j.via] },
  timeColumn<RegisteredJwk>('registered', (j) => j.registered_at),
];

/** The banks onboarded into the sandbox: keys, URLs, and what to run against each. */
export function CounterpartiesPanel({ counterparties }: { counterparties: Counterparty[] }) {
  const onboardOpen = useSandboxStore((s) => s.onboardOpen);
  const setOnboardOpen = useSandboxStore((s) => s.setOnboardOpen);
  return (
    <section className="panel" aria-labelledby="counterparties-title" data-testid="counterparties">
      <h2 id="counterparties-title" className="panel-title">
        Counterparties <span className="panel-note">{counterparties.length}</span>
        <span className="panel-spacer" />
        <Allowed method="sandbox.onboard">
          {!onboardOpen ? (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => setOnboardOpen(true)}
              data-testid="onboard-open"
            >
              Onboard counterparty…
            </button>
          ) : null}
        </Allowed>
      </h2>
      {onboardOpen ? (
        <div className="panel-body">
          <OnboardForm />
        </div>
      ) : null}
      {counterparties.length === 0 && !onboardOpen ? (
        <div className="panel-body">
          <div className="empty" data-testid="counterparties-empty">
            <h2>No counterparty yet</h2>
            <p>
              Onboard your bank with the public JWK it signs with, and the URLs of its callbacks{' '}
              <span className="nowrap">
                (<code>/user_auth</code>,
              </span>{' '}
              <code>/key</code>, <code>/external_id</code>) and notification endpoints. Then run a sign-in and
              send notifications to it.
            </p>
            <Allowed method="sandbox.onboard">
              <button
                type="button"
                className="btn btn-primary"
                onClick={() => setOnboardOpen(true)}
                data-testid="onboard-open-empty"
              >
                Onboard counterparty
              </button>
            </Allowed>
          </div>
        </div>
      ) : null}
      <ul className="counterparty-list">
        {counterparties.map((c) => (
          <CounterpartyItem key={c.counterparty_guid} counterparty={c} />
        ))}
      </ul>
    </section>
  );
}

function CounterpartyItem({ counterparty: c }: { counterparty: Counterparty }) {
  const open = useSandboxStore((s) => s.openCounterparty === c.counterparty_guid);
  const toggle = useSandboxStore((s) => s.toggleCounterparty);
  const bodyId = `counterparty-body-${c.counterparty_guid}`;
  const urlsSet = [c.bank_auth_url, c.bank_sender_url, c.bank_receiver_url].filter(Boolean).length;
  return (
    <li
      className={`counterparty ${open ? 'is-open' : ''}`}
      data-testid={`counterparty-${c.counterparty_guid}`}
      data-guid={c.counterparty_guid}
    >
      <div className="counterparty-head">
        <DisclosureButton
          className="disclosure"
          expanded={open}
          controls={bodyId}
          onToggle={() => toggle(c.counterparty_guid)}
          testId="counterparty-toggle"
        >
          <code title={c.counterparty_guid}>
            {open ? c.counterparty_guid : shortGuid(c.counterparty_guid)}
          </code>
          <span className="muted">
            {c.jwks.length} JWK{c.jwks.length === 1 ? '' : 's'} · {urlsSet} of 3 URLs
          </span>
        </DisclosureButton>
        <CopyButton text={() => c.counterparty_guid} label="Copy GUID" testId="copy-counterparty-guid" />
      </div>
      {open ? (
        <div className="counterparty-body" id={bodyId}>
          <DataTable
            rows={c.jwks}
            columns={JWK_COLUMNS}
            rowKey={(j) => j.jwk_guid}
            rowProps={(j) => ({ 'data-testid': `jwk-${j.jwk_guid}` })}
            caption="JWKs registered for this counterparty"
            testId="counterparty-jwks"
          />
          <Allowed method="sandbox.updateCounterparty">
            <BankUrlsForm counterparty={c} />
          </Allowed>
          <div className="counterparty-actions">
            <Allowed method="sandbox.signIn">
              <SignInForm counterparty={c} />
            </Allowed>
            <Allowed method="sandbox.notify">
              <NotifyForm counterparty={c} />
            </Allowed>
          </div>
        </div>
      ) : null}
    </li>
  );
}
