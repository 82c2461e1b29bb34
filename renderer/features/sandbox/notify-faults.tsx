import { Segmented } from '../../shared/segmented';
import { DraftFields, type FieldSpec } from '../../ui/draft-fields';
import type { NotifyDraft } from './sandbox-store';
import type { NotifyField } from './notify-input';

const LADDERS: Array<{ value: NotifyDraft['ladder']; label: string }> = [
  { value: 'service', label: 'the service’s ladder' },
  { value: 'once', label: 'once' },
];

/** The copies and the timeout, wired to the draft by DraftFields. */
const countFields = (base: string): FieldSpec<NotifyDraft>[] => [
  {
    key: 'duplicates',
    id: `${base}-duplicates`,
    label: 'Duplicates',
    hint: '0–10 more copies',
    placeholder: '0',
    inputMode: 'numeric',
    autoComplete: 'off',
    testId: 'notify-duplicates',
    mono: true,
  },
  {
    key: 'timeout_ms',
    id: `${base}-timeout`,
    label: 'Timeout (ms)',
    hint: '100–30000; empty: the setting',
    placeholder: 'the setting',
    inputMode: 'numeric',
    autoComplete: 'off',
    testId: 'notify-timeout',
    mono: true,
  },
];

const THEN: Array<{ value: NotifyDraft['then']; label: string }> = [
  { value: '', label: 'nothing' },
  { value: 'pay-in', label: 'a pay-in of the same transaction_id' },
  { value: 'pay-out', label: 'a pay-out of the same transaction_id' },
];

/**
 * How the notification is delivered (issue 27 items 1–2; DESIGN.md "Sandbox service" notify):
 * the ladder, and the faults the service's own behaviour can produce: copies (spaced or at once),
 * a lost acknowledgement, a timeout, and a second notification of the same transaction_id after
 * this one (a pay-out before its pay-in). Problems come from the contract's schemas
 * (notify-input.ts), so they read as the API's refusal would.
 */
export function NotifyFaults({
  base,
  draft,
  edit,
  errorFor,
}: {
  base: string;
  draft: NotifyDraft;
  edit: (patch: Partial<NotifyDraft>) => void;
  errorFor: (field: NotifyField) => string | undefined;
}) {
  return (
    <fieldset className="notify-faults" data-testid="notify-faults">
      <legend className="field-label">Delivery</legend>
      <div className="field">
        <span className="field-label" id={`${base}-ladder-label`}>
          Ladder{' '}
          <span className="field-hint">
            {draft.ladder === 'service'
              ? 'retried until a 2xx, on the waits of the delivery settings'
              : 'one attempt, never retried'}
          </span>
        </span>
        <Segmented
          label="Delivery ladder"
          name={`${base}-ladder`}
          options={LADDERS}
          value={draft.ladder}
          onChange={(ladder) => edit({ ladder })}
          testIdPrefix="notify-ladder-"
        />
      </div>
      <div className="notify-grid">
        <DraftFields
          specs={countFields(base)}
          draft={draft}
          edit={edit}
          errorFor={(f) => errorFor(f as NotifyField)}
        />
        <div className="field">
          <label htmlFor={`${base}-then`} className="field-label">
            Then send <span className="field-hint">reordering</span>
          </label>
          <select
            id={`${base}-then`}
            className="input"
            value={draft.then}
            onChange={(e) => edit({ then: e.target.value as NotifyDraft['then'] })}
            data-testid="notify-then"
          >
            {THEN.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="notify-checks">
        <label className="notify-check">
          <input
            type="checkbox"
            checked={draft.concurrent}
            onChange={(e) => edit({ concurrent: e.target.checked })}
            disabled={draft.duplicates.trim() === '' || draft.duplicates.trim() === '0'}
            data-testid="notify-concurrent"
          />{' '}
          copies all at once (else 200 ms apart)
        </label>
        <label className="notify-check">
          <input
            type="checkbox"
            checked={draft.lost_ack}
            onChange={(e) => edit({ lost_ack: e.target.checked })}
            data-testid="notify-lost-ack"
          />{' '}
          lose the first acknowledgement (the connection closes as the status line arrives)
        </label>
      </div>
    </fieldset>
  );
}
