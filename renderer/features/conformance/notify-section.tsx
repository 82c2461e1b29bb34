import { useState, type FormEvent } from 'react';
import { NOTIFY_CASE_TEXTS } from '../../../electron/contract/notify-cases';
import { CopyButton } from '../../shared/copy-button';
import { ErrorPanel } from '../../shared/error-panel';
import { Field } from '../../shared/field';
import { useRunNotify } from '../../data/conformance';
import { useConformanceStore, type ConformanceField } from './conformance-store';
import { inputProps } from './conformance-form';
import { checkNotifyForm, notifyCliCommand, type NotifyErrors, type NotifyValues } from './notify-form';
import { Allowed } from '../../shared/allowed';

/**
 * The Notifications section of the Conformance page (issue 27 item 4; DESIGN.md "Conformance of
 * a bank's notification endpoints"): the `notify.*` cases against the host the service posts
 * notifications to, with the probe that proves "applied exactly once" and the team's expected
 * failures; the run shows in the run panel beside it, as a callback run does.
 */
export function NotifySection({ busy }: { busy: boolean }) {
  const store = useConformanceStore();
  const values: NotifyValues = {
    notifyUrl: store.notifyUrl,
    notifyPrefix: store.notifyPrefix,
    probeUrl: store.probeUrl,
    expectedFailures: store.expectedFailures,
  };
  const runNotify = useRunNotify();
  const [errors, setErrors] = useState<NotifyErrors>({});
  const disabled = busy || runNotify.isPending;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const checked = checkNotifyForm(values);
    setErrors(checked.errors);
    if (checked.input) runNotify.mutate(checked.input);
  };
  const field = (name: keyof NotifyValues & ConformanceField) =>
    inputProps(name, values[name], errors[name], (v) => {
      store.setField(name, v);
      if (errors[name]) setErrors({ ...errors, [name]: undefined });
    });
  const base = values.notifyUrl.trim().replace(/\/+$/, '') || '{notify URL}';
  const prefix = values.notifyPrefix.trim() || '{prefix}';

  return (
    <section className="panel" aria-labelledby="cf-notify-title" data-testid="conformance-notify">
      <h2 id="cf-notify-title" className="panel-title">
        Notification endpoints
      </h2>
      <form className="panel-body cf-form" onSubmit={submit} noValidate data-testid="conformance-notify-form">
        <p className="muted cf-note">
          The {NOTIFY_CASE_TEXTS.length} <code>notify.*</code> cases: valid pay-in, pay-out and transfer, the
          same transaction_id again (and in upper case), five copies at once, an answer lost in transit, and
          bodies that must be refused, as the service’s retries will send them.
        </p>
        <Field
          id="cf-notifyUrl"
          label="Notify URL"
          hint="the host the service posts to"
          error={errors.notifyUrl}
          note={
            <>
              Posts to <code data-testid="conformance-notify-target">{`${base}${prefix}/pay-in`}</code>,
              /pay-out, /transfer
            </>
          }
        >
          <input
            {...field('notifyUrl')}
            className="input"
            type="url"
            placeholder="https://bank.example"
            data-testid="conformance-notify-url"
          />
        </Field>
        <Field
          id="cf-notifyPrefix"
          label="Prefix"
          hint="spec: /api/svc/notify; the guide: /api/dcm/notify"
          error={errors.notifyPrefix}
        >
          <input {...field('notifyPrefix')} className="input" data-testid="conformance-notify-prefix" />
        </Field>
        <Field
          id="cf-probeUrl"
          label="Probe URL (optional)"
          hint={'GET {probe}/<transaction_id> → {"count": N}'}
          error={errors.probeUrl}
          note={
            <span data-testid="conformance-probe-why">
              The probe is how the run proves each duplicate was <strong>applied exactly once</strong>: your
              bank answers how many times it applied a transaction_id. Without it, a bank that answers 200 to
              a repeat but credits twice passes.
            </span>
          }
        >
          <input
            {...field('probeUrl')}
            className="input"
            type="url"
            placeholder="http://127.0.0.1:8080/test/applied"
            data-testid="conformance-probe-url"
          />
        </Field>
        <Field
          id="cf-expectedFailures"
          label="Expected failures (optional)"
          hint='{"<case id>": "<reason>"}'
          error={errors.expectedFailures}
          note="Listed failures are reported without failing the run; listed cases that now pass are named."
        >
          <textarea
            {...field('expectedFailures')}
            className="input cf-expected"
            rows={3}
            placeholder='{"notify.repeat.upper-case": "BANK-123: ids compared as typed"}'
            data-testid="conformance-expected-failures"
          />
        </Field>
        <div className="form-actions">
          <Allowed method="conformance.runNotify">
            <button
              type="submit"
              className="btn btn-primary"
              disabled={disabled}
              data-testid="conformance-notify-run"
            >
              {runNotify.isPending ? 'Running…' : 'Run notification cases'}
            </button>
          </Allowed>
          <CopyButton
            text={() => notifyCliCommand(values)}
            label="Copy as CI command"
            testId="conformance-notify-copy-cli"
          />
        </div>
        {runNotify.error ? (
          <ErrorPanel
            title="The notification run could not start"
            error={runNotify.error}
            testId="conformance-notify-error"
          />
        ) : null}
      </form>
    </section>
  );
}
