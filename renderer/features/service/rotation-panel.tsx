import { DEFAULT_KEY_DAYS, defaultKeyExpiry } from '../../../electron/contract/schemas/keys';
import { useState, type FormEvent } from 'react';
import { DialogActions } from '../../shared/dialog-actions';
import { Dialog } from '../../ui/dialog';
import type { MethodInput } from '../../../electron/contract';
import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import type { Environment, Rotation } from '../../../electron/contract/schemas/service';
import { ErrorPanel } from '../../shared/error-panel';
import { DraftFields, type FieldSpec } from '../../ui/draft-fields';
import { formatLocal } from '../../shared/format';
import { StatusMark, type Status } from '../../shared/status-mark';
import { ALGS, BITS, useKeys } from '../../data/keys';
import { revealExchange } from './exchange-list';
import { useServiceStore, type RotateDraft } from './service-store';
import { useLastRotation, useRotate } from '../../data/service';
import { Allowed } from '../../shared/allowed';

type StepId = Rotation['steps'][number]['id'];

/** The five steps, as the wizard explains them before anything runs (spec 5 #3: before a key expires). */
export const ROTATION_STEPS: Array<{ id: StepId; title: string; what: string }> = [
  {
    id: 'generate',
    title: 'Generate the next key',
    what: 'a new RSA key in the vault with status next, or a key you added with status next (one held in an HSM or KMS)',
  },
  {
    id: 'register',
    title: 'Register it with the service',
    what: 'PUT …/jwk/{jwk_guid} with its public JWK, signed by the current key (spec 4.1 #1)',
  },
  {
    id: 'prove',
    title: 'Prove it works',
    what: 'authenticate with a token signed by the new key: the service must accept it',
  },
  { id: 'activate', title: 'Activate it', what: 'the new key becomes this environment’s active key' },
  {
    id: 'retire',
    title: 'Retire the old key',
    what: 'the old key stops signing (it is kept where it is held)',
  },
];

const STEP_STATUS: Record<Rotation['steps'][number]['status'], Status> = {
  passed: 'passed',
  failed: 'failed',
  skipped: 'skipped',
  pending: 'info',
};

/** The new key's shape: the same choices as Keys › Generate. */
const ROTATE_SPECS: readonly FieldSpec<RotateDraft>[] = [
  { key: 'alg', id: 'rotate-alg', label: 'Algorithm', values: ALGS },
  { key: 'bits', id: 'rotate-bits', label: 'Bits', values: BITS, parse: Number },
  // Empty: the core gives the new key the default validity, as the walkthrough's keys (issue 26).
  {
    key: 'expires',
    id: 'rotate-expires',
    label: 'New key expires',
    hint: `default: in ${DEFAULT_KEY_DAYS} days`,
    type: 'date',
  },
];

/**
 * The next key: generate one in the vault, or a key already added with status next (one held
 * in an HSM or KMS: Keys › Add a key held elsewhere, status next; DESIGN.md "Keys held elsewhere").
 */
function nextKeySpec(keys: KeyInfo[]): FieldSpec<RotateDraft> {
  const candidates = keys.filter((k) => k.status === 'next');
  return {
    key: 'next',
    id: 'rotate-next',
    label: 'Next key',
    hint: candidates.length > 0 ? 'a key with status next, or a new one' : 'none with status next yet',
    values: candidates.map((k) => k.kid),
    empty: 'generate a new key in the vault',
  };
}

function rotateInput(d: RotateDraft, nextKid?: string | null): MethodInput<'service.rotate'> {
  if (nextKid) return { next_kid: nextKid };
  if (d.next !== '') return { next_kid: d.next };
  const input: MethodInput<'service.rotate'> = { alg: d.alg, bits: d.bits };
  if (d.expires !== '') input.expires = d.expires;
  return input;
}

/** Key rotation as a wizard: what will happen, run it, see each step, and recover from a refusal. */
export function RotationPanel({ env }: { env: Environment | null }) {
  const draft = useServiceStore((s) => s.rotate);
  const setDraft = useServiceStore((s) => s.setRotate);
  const rotate = useRotate();
  const last = useLastRotation().data ?? null;
  const ready = Boolean(env?.active_kid && env.counterparty_guid && env.base_url);
  const keys = useKeys().data ?? [];
  const specs = draft.next === '' ? [nextKeySpec(keys), ...ROTATE_SPECS] : [nextKeySpec(keys)];

  // Against a real environment the rotation changes what the service trusts: confirm first.
  const [confirming, setConfirming] = useState(false);
  const start = (e: FormEvent) => {
    e.preventDefault();
    if (env?.kind === 'real') setConfirming(true);
    else rotate.mutate(rotateInput(draft));
  };

  return (
    <section className="panel" aria-labelledby="rotation-title" data-testid="rotation-panel">
      <h2 id="rotation-title" className="panel-title">
        Rotation <span className="panel-note">before the active key expires</span>
      </h2>
      <div className="panel-body rotation-body">
        <RotationPlan activeKid={env?.active_kid ?? null} />
        <form className="rotation-form" onSubmit={start} noValidate>
          <DraftFields specs={specs} draft={draft} edit={setDraft} />
          <Allowed method="service.rotate">
            <button
              type="submit"
              className="btn btn-small btn-primary rotation-start"
              disabled={rotate.isPending || !ready}
              title={
                ready ? undefined : 'The environment needs a base URL, a counterparty GUID and an active key'
              }
              data-testid="rotate-start"
            >
              {rotate.isPending ? 'Rotating…' : 'Rotate now'}
            </button>
          </Allowed>
        </form>
        {!ready && env ? (
          <p className="text-warn" data-testid="rotate-not-ready">
            Rotation needs the environment’s base URL, counterparty GUID and active key.
          </p>
        ) : null}
        {rotate.isPending ? (
          <p className="muted" role="status">
            Rotating: generating, registering and proving the new key. Each step’s request appears in the
            history as it is sent.
          </p>
        ) : null}
        {rotate.error ? (
          <ErrorPanel title="Rotation not started" error={rotate.error} testId="rotate-error" />
        ) : null}
        {last ? (
          <RotationResult
            rotation={last}
            toExpires={keys.find((k) => k.kid === last.to_kid)?.expires ?? null}
            retrying={rotate.isPending}
            onRetry={(nextKid) => rotate.mutate(rotateInput(draft, nextKid))}
          />
        ) : null}
      </div>
      {confirming && env ? (
        <ConfirmRotation
          env={env}
          newKeyExpiry={newKeyExpiry(draft, keys)}
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            rotate.mutate(rotateInput(draft));
          }}
        />
      ) : null}
    </section>
  );
}

function RotationResult({
  rotation: r,
  toExpires,
  retrying,
  onRetry,
}: {
  rotation: Rotation;
  /** The new key's last valid day, from the key list (null: none, or not listed). */
  toExpires: string | null;
  retrying: boolean;
  onRetry: (nextKid: string | null) => void;
}) {
  const failedStep = r.steps.find((s) => s.status === 'failed');
  return (
    <div
      className="rotation-result"
      data-testid="rotation-result"
      data-state={r.state}
      data-started={r.started_at}
    >
      {r.state === 'done' ? (
        <div className="banner banner-pass" role="status" data-testid="rotation-done">
          <span className="banner-icon" aria-hidden="true">
            ✓
          </span>
          <p>
            <strong>Rotated.</strong> <code>{r.to_kid}</code> is now the active key
            {toExpires ? (
              <span data-testid="rotation-new-expires">
                {' '}
                (valid until <time dateTime={toExpires}>{toExpires}</time>: rotate again before then)
              </span>
            ) : null}
            ; <code>{r.from_kid}</code> is retired.
          </p>
        </div>
      ) : (
        <div className="banner banner-fail" role="alert" data-testid="rotation-failed">
          <span className="banner-icon" aria-hidden="true">
            ✗
          </span>
          <div className="banner-body">
            <p>
              <strong>
                Rotation stopped{failedStep ? ` at “${failedStep.title}”` : ''}. The old key{' '}
                <code data-testid="rotation-old-kid">{r.from_kid}</code> is still active
              </strong>
              : your bank keeps signing with it, nothing changed for the service’s view of your tokens.
            </p>
            <p className="form-actions">
              {r.to_kid ? (
                <Allowed method="service.rotate">
                  <button
                    type="button"
                    className="btn btn-small btn-primary"
                    onClick={() => onRetry(r.to_kid)}
                    disabled={retrying}
                    data-testid="rotate-retry"
                  >
                    {retrying ? 'Retrying…' : <>Retry with the same next key ({r.to_kid})</>}
                  </button>
                </Allowed>
              ) : null}
              <Allowed method="service.rotate">
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={() => onRetry(null)}
                  disabled={retrying}
                  data-testid="rotate-restart"
                >
                  Start over with a new key
                </button>
              </Allowed>
            </p>
          </div>
        </div>
      )}
      <ol className="rotation-steps" data-testid="rotation-steps">
        {r.steps.map((s) => (
          <li
            key={s.id}
            className={`rotation-step step-${s.status}`}
            data-testid={`rotation-step-${s.id}`}
            data-status={s.status}
          >
            <StatusMark status={STEP_STATUS[s.status]} word={s.status} />
            <span className="rotation-step-body">
              <span className="rotation-step-title">{s.title}</span>
              {s.detail ? <span className="rotation-step-detail">{s.detail}</span> : null}
            </span>
            {s.exchange_id ? (
              <button
                type="button"
                className="btn-link rotation-step-link"
                onClick={() => revealExchange(s.exchange_id!)}
                data-testid="rotation-step-exchange"
              >
                exchange
              </button>
            ) : (
              <span />
            )}
          </li>
        ))}
      </ol>
      <p className="muted rotation-times">
        {r.environment_id} · started {formatLocal(r.started_at) ?? r.started_at} · finished{' '}
        {formatLocal(r.finished_at) ?? r.finished_at}
      </p>
    </div>
  );
}

/** The four steps a rotation takes, and the promise that the current key stays until they pass. */
function RotationPlan({ activeKid }: { activeKid: string | null }) {
  return (
    <>
      <ol className="rotation-plan" data-testid="rotation-plan">
        {ROTATION_STEPS.map((s, i) => (
          <li key={s.id}>
            <span className="rotation-num">{i + 1}</span>
            <span>
              <strong>{s.title}</strong>: {s.what}.
            </span>
          </li>
        ))}
      </ol>
      <p className="muted rotation-safety">
        Until step 4 passes, the current key
        {activeKid ? (
          <>
            {' '}
            <code>{activeKid}</code>
          </>
        ) : null}{' '}
        stays active: a refusal at any step leaves your bank signing as before.
      </p>
    </>
  );
}

/**
 * The last valid day the next key will have: a chosen key's own, the date typed, else the default
 * the core applies (DEFAULT_KEY_DAYS from today, UTC); null for a chosen key without one.
 */
function newKeyExpiry(draft: RotateDraft, keys: KeyInfo[]): { day: string | null; note: string } {
  if (draft.next !== '')
    return { day: keys.find((k) => k.kid === draft.next)?.expires ?? null, note: `${draft.next}’s own date` };
  if (draft.expires !== '') return { day: draft.expires, note: 'the date you chose' };
  return { day: defaultKeyExpiry(Date.now()), note: `the default, ${DEFAULT_KEY_DAYS} days` };
}

/** Against a real environment: what the rotation will change, confirmed before it runs. */
function ConfirmRotation({
  env,
  newKeyExpiry: expiry,
  onCancel,
  onConfirm,
}: {
  env: Environment;
  newKeyExpiry: { day: string | null; note: string };
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <Dialog
      title="Rotate the key of a real environment?"
      onClose={onCancel}
      testId="rotate-confirm"
      tone="danger"
    >
      <p>
        This registers a new key with <code>{env.base_url}</code> for counterparty{' '}
        <code>{env.counterparty_guid}</code>, proves it, then makes it the active key and retires{' '}
        <code>{env.active_kid}</code> for signing. If a step is refused, the current key stays active.
      </p>
      <p data-testid="rotate-confirm-expiry">
        {expiry.day ? (
          <>
            The new key is valid until <time dateTime={expiry.day}>{expiry.day}</time> ({expiry.note}).
          </>
        ) : (
          <>The chosen key has no expiry date: it signs until you retire it.</>
        )}
      </p>
      <DialogActions
        onCancel={onCancel}
        cancelTestId="rotate-confirm-cancel"
        cancelAutoFocus
        confirmLabel="Rotate"
        confirmTestId="rotate-confirm-go"
        onConfirm={onConfirm}
      />
    </Dialog>
  );
}
