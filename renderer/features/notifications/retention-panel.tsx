import { useState } from 'react';
import type { NotificationRetention, RetentionRemoval } from '../../../electron/contract/schemas/events';
import { DialogActions } from '../../shared/dialog-actions';
import { ErrorPanel } from '../../shared/error-panel';
import { formatLocal } from '../../shared/format';
import { Segmented } from '../../shared/segmented';
import { useNotificationRetention, useSetNotificationRetention } from '../../data/notifications';
import { Allowed } from '../../shared/allowed';

type Mode = NotificationRetention['mode'];

const MODES: ReadonlyArray<{ value: Mode; label: string }> = [
  { value: 'keep', label: 'Keep all' },
  { value: 'days', label: 'Keep N days' },
  { value: 'last', label: 'Keep last N' },
];

function ruleText(rule: NotificationRetention): string {
  if (rule.mode === 'days') return `the last ${rule.days.toLocaleString('en')} day(s)`;
  if (rule.mode === 'last') return `the newest ${rule.count.toLocaleString('en')}`;
  return 'every one';
}

function sizeText(bytes: number | null): string {
  if (bytes === null) return 'unknown';
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(0)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

function removalText(r: RetentionRemoval): string {
  if (r.count === 0) return 'This removes no notification now.';
  const span =
    r.oldest_at && r.newest_at ? ` (from ${formatLocal(r.oldest_at)} to ${formatLocal(r.newest_at)})` : '';
  return `This removes ${r.count.toLocaleString('en')} acknowledged notification(s)${span}; they cannot be brought back, and a repeat of one of them will no longer be recognised as a repeat.`;
}

/**
 * How long acknowledged notifications are kept (issue 12 item 3: the user's setting, default
 * keep, with a warning as the database grows). A change is reviewed first: the core reports
 * what it would remove and nothing is removed until the user confirms.
 */
export function RetentionPanel() {
  const state = useNotificationRetention();
  const change = useSetNotificationRetention();
  const [mode, setMode] = useState<Mode | null>(null);
  /** null: untouched, the rule in force's number shows. */
  const [typed, setAmount] = useState<string | null>(null);
  const current = state.data?.rule;
  const chosen: Mode = mode ?? current?.mode ?? 'keep';
  const inForce = current?.mode === 'days' ? current.days : current?.mode === 'last' ? current.count : null;
  const amount = typed ?? (chosen === current?.mode && inForce !== null ? String(inForce) : '');
  const n = Number(amount);
  const valid = chosen === 'keep' || (amount !== '' && Number.isInteger(n) && n >= 1);
  const rule: NotificationRetention | null = !valid
    ? null
    : chosen === 'days'
      ? { mode: 'days', days: n }
      : chosen === 'last'
        ? { mode: 'last', count: n }
        : { mode: 'keep' };
  const preview = change.data && !change.data.applied ? change.data : null;
  const reset = () => {
    change.reset();
    setMode(null);
    setAmount(null);
  };

  return (
    <section
      className="panel notifications-retention-panel"
      aria-label="Retention"
      data-testid="retention-panel"
    >
      <h2 className="panel-title">Retention</h2>
      {state.error ? (
        <ErrorPanel title="Retention unavailable" error={state.error} testId="retention-error" />
      ) : !state.data ? (
        <p className="muted">Loading…</p>
      ) : (
        <div className="panel-body">
          <RetentionNow state={state.data} />
          <Allowed method="events.setRetention">
            <Segmented
              label="Retention"
              name="retention-mode"
              options={MODES}
              value={chosen}
              onChange={(v) => {
                change.reset();
                setMode(v);
              }}
            />
            {chosen !== 'keep' ? (
              <input
                className="input input-narrow"
                type="number"
                min={1}
                step={1}
                value={amount}
                placeholder={chosen === 'days' ? 'days' : 'how many'}
                onChange={(e) => {
                  change.reset();
                  setAmount(e.target.value);
                }}
                data-testid="retention-amount"
                aria-label={chosen === 'days' ? 'Keep this many days' : 'Keep this many notifications'}
              />
            ) : null}
            {preview ? (
              <div data-testid="retention-preview">
                <p role="status">{removalText(preview.removal)}</p>
                <DialogActions
                  small
                  confirmFirst
                  onCancel={reset}
                  cancelTestId="retention-cancel"
                  confirmLabel={
                    preview.removal.count > 0 ? `Remove ${preview.removal.count} and apply` : 'Apply'
                  }
                  confirmTestId="retention-confirm"
                  danger={preview.removal.count > 0}
                  confirmDisabled={change.isPending || rule === null}
                  onConfirm={() => rule && change.mutate({ rule, confirm: true })}
                />
              </div>
            ) : (
              <button
                type="button"
                className="btn btn-small"
                disabled={rule === null || change.isPending}
                onClick={() => rule && change.mutate({ rule, confirm: false })}
                data-testid="retention-review"
                title="Shows what the new retention would remove; nothing is removed before you confirm"
              >
                Review change
              </button>
            )}
          </Allowed>
          {change.data?.applied ? (
            <p className="muted" role="status" data-testid="retention-applied">
              Retention set to keep {ruleText(change.data.rule)};{' '}
              {change.data.removal.count.toLocaleString('en')} removed.
            </p>
          ) : null}
          {change.error ? (
            <ErrorPanel title="Retention not changed" error={change.error} testId="retention-change-error" />
          ) : null}
        </div>
      )}
    </section>
  );
}

/** The rule in force, what is stored, the database's size, and its warning. */
function RetentionNow({
  state,
}: {
  state: NonNullable<ReturnType<typeof useNotificationRetention>['data']>;
}) {
  return (
    <>
      <p data-testid="retention-current">
        Keeping <strong>{ruleText(state.rule)}</strong> of the acknowledged notifications (
        {state.notifications.toLocaleString('en')} stored). The database is{' '}
        <strong data-testid="retention-size">{sizeText(state.size_bytes)}</strong>. Nothing else is ever
        removed to make room for them, nor they for anything else.
      </p>
      {state.size_warning ? (
        <div className="banner banner-warn" role="status" data-testid="retention-size-warning">
          <span className="banner-icon" aria-hidden="true">
            !
          </span>
          <p>{state.size_warning}</p>
        </div>
      ) : null}
    </>
  );
}
