import { type FormEvent } from 'react';
import type { Counterparty } from '../../../electron/contract/schemas/sandbox';
import { ErrorPanel } from '../../shared/error-panel';
import { Segmented } from '../../shared/segmented';
import { fieldOfError } from '../../shared/field-errors';
import { formatMs } from '../../shared/format';
import { DEFAULT_NOTIFY, showTrace, useSandboxStore, type NotifyDraft } from './sandbox-store';
import { useNotify } from '../../data/sandbox';
import { NotifyFaults } from './notify-faults';
import { notifyInputOf, type NotifyField } from './notify-input';

const FIELDS: readonly NotifyField[] = ['transaction_id', 'duplicates', 'timeout_ms'];

const TO_OPTIONS: Array<{ value: NotifyDraft['to']; label: string }> = [
  { value: 'sender', label: 'sender' },
  { value: 'receiver', label: 'receiver' },
];

const EVENTS: Array<{ value: NotifyDraft['event']; label: string }> = [
  { value: 'pay-in', label: 'pay-in → receiver URL' },
  { value: 'pay-out', label: 'pay-out → sender URL' },
  { value: 'transfer', label: 'transfer → sender or receiver' },
];

/** The bodies to send: the valid one, or one that breaks spec 2.7 to test the bank's rejection path. */
const BODIES: Array<{ value: NotifyDraft['malformed']; label: string; shows: string }> = [
  { value: '', label: 'valid', shows: '{"transaction_id": "<uuid>"}' },
  { value: 'not-json', label: 'malformed: not JSON', shows: 'transaction_id=<uuid> (not JSON)' },
  { value: 'no-transaction-id', label: 'malformed: no transaction_id', shows: '{"transactionId": "<uuid>"}' },
  { value: 'bad-uuid', label: 'malformed: transaction_id not a UUID', shows: '{"transaction_id": "tx-…"}' },
];

/** Which URL a notification goes to (spec 4.3), for the hint under the form. */
function targetOf(c: Counterparty, d: NotifyDraft): { field: string; url: string | null } {
  const toReceiver = d.event === 'pay-in' || (d.event === 'transfer' && d.to === 'receiver');
  return toReceiver
    ? { field: 'receiver URL', url: c.bank_receiver_url }
    : { field: 'sender URL', url: c.bank_sender_url };
}

/** A balance-change notification (spec 6) sent to the bank now. */
export function NotifyForm({ counterparty }: { counterparty: Counterparty }) {
  const guid = counterparty.counterparty_guid;
  const draft = useSandboxStore((s) => s.notifyDrafts[guid]) ?? DEFAULT_NOTIFY;
  const setDraft = useSandboxStore((s) => s.setNotifyDraft);
  const showDelivery = useSandboxStore((s) => s.showDelivery);
  const notify = useNotify((trace) => showTrace(trace));
  const malformed = draft.malformed !== '';
  const { input, problems } = notifyInputOf(guid, draft);
  // The core's refusal goes under the field it names (details.field), like the form's own problems.
  const refused = notify.error ? fieldOfError(notify.error, FIELDS) : null;
  const errorFor = (f: NotifyField) => problems[f] ?? (refused?.field === f ? refused.message : undefined);
  const idProblem = errorFor('transaction_id') ?? null;
  const blocked = Object.keys(problems).length > 0;
  const body = BODIES.find((b) => b.value === draft.malformed) ?? BODIES[0]!;
  const target = targetOf(counterparty, draft);
  const base = `notify-${guid}`;
  const edit = (patch: Partial<NotifyDraft>) => {
    if (notify.error) notify.reset();
    setDraft(guid, patch);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (blocked) return;
    // The delivery's timeline opens in the Deliveries panel and follows it live.
    notify.mutate(input, { onSuccess: (result) => showDelivery(result.delivery_id) });
  };

  const result = notify.data;
  return (
    <form className="action-form" onSubmit={submit} noValidate aria-labelledby={`${base}-title`}>
      <h4 id={`${base}-title`} className="subhead">
        Send notification
      </h4>
      <div className="notify-grid">
        <ChoiceField
          id={`${base}-event`}
          label="Event"
          choices={EVENTS}
          value={draft.event}
          onChange={(event) => edit({ event })}
          testId="notify-event"
        />
        {draft.event === 'transfer' ? (
          <fieldset className="field">
            <legend className="field-label">To</legend>
            <Segmented
              label="Send the transfer to"
              name={`${base}-to`}
              options={TO_OPTIONS}
              value={draft.to}
              onChange={(to) => edit({ to })}
              testIdPrefix="notify-to-"
            />
          </fieldset>
        ) : null}
        <ChoiceField
          id={`${base}-body`}
          label="Body"
          choices={BODIES}
          value={draft.malformed}
          onChange={(malformed) => edit({ malformed })}
          testId="notify-body"
        />
        {malformed ? null : (
          <div className="field">
            <label htmlFor={`${base}-txid`} className="field-label">
              transaction_id <span className="field-hint">optional · a new UUID when empty</span>
            </label>
            <input
              id={`${base}-txid`}
              className="input mono"
              value={draft.transaction_id}
              onChange={(e) => edit({ transaction_id: e.target.value })}
              spellCheck={false}
              autoComplete="off"
              placeholder="a new UUID"
              aria-invalid={idProblem ? true : undefined}
              aria-describedby={`${base}-txid-note`}
              data-testid="notify-transaction-id"
            />
            <p className="field-note" id={`${base}-txid-note`}>
              {idProblem ? <span className="field-error">transaction_id {idProblem}</span> : null}
            </p>
          </div>
        )}
      </div>
      <NotifyFaults base={base} draft={draft} edit={edit} errorFor={errorFor} />
      <p className="field-note muted">
        POST to the {target.field}
        {target.url ? (
          <>
            {' '}
            <code>{target.url}</code>
          </>
        ) : (
          <span className="text-warn"> (not set yet)</span>
        )}{' '}
        with body <code data-testid="notify-body-shown">{body.shows}</code>
        {malformed ? ': the bank should refuse it with 400 and record it rejected' : null}.
      </p>
      <div className="form-actions">
        <button
          type="submit"
          className="btn btn-small btn-primary"
          disabled={notify.isPending || blocked}
          data-testid="send-notification"
        >
          {notify.isPending ? 'Sending…' : malformed ? 'Send malformed notification' : 'Send notification'}
        </button>
        {result ? <NotifyResult result={result} /> : null}
      </div>
      {notify.error && refused?.field === null ? (
        <ErrorPanel title="Not sent" error={notify.error} testId="notify-error" />
      ) : null}
    </form>
  );
}

/** A select over labelled choices, in a field. */
function ChoiceField<V extends string>({
  id,
  label,
  choices,
  value,
  onChange,
  testId,
}: {
  id: string;
  label: string;
  choices: ReadonlyArray<{ value: V; label: string }>;
  value: V;
  onChange: (value: V) => void;
  testId: string;
}) {
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <select
        id={id}
        className="input"
        value={value}
        onChange={(e) => onChange(e.target.value as V)}
        data-testid={testId}
      >
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The notification's outcome: status, time and its transaction_id. */
function NotifyResult({ result }: { result: NonNullable<ReturnType<typeof useNotify>['data']> }) {
  // A good notification passes with 200; a malformed one passes when the bank refuses it (4xx).
  const passed = result.trace.ok === true;
  return (
    <span
      className={`result-line ${passed ? 'text-pass' : 'text-fail'}`}
      role="status"
      data-testid="notify-result"
      data-status={result.status ?? 'unreachable'}
    >
      {passed ? '✓' : '✗'} {result.status ?? 'no answer'} in {formatMs(result.duration_ms)} ·{' '}
      <code data-testid="notify-result-transaction-id">{result.transaction_id}</code>
      {result.error ? ` · ${result.error}` : null}
    </span>
  );
}
