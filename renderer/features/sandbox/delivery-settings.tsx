import { schemas, type MethodInput } from '../../../electron/contract';
import {
  DEFAULT_DELIVERY_TIMEOUT_MS,
  SERVICE_LADDER_MAX_ATTEMPTS,
  SERVICE_LADDER_WAITS_SECONDS,
} from '../../../electron/contract/schemas/delivery';
import type { SandboxSettings } from '../../../electron/contract/schemas/sandbox';
import { ErrorPanel } from '../../shared/error-panel';
import { DraftFields, type FieldSpec } from '../../ui/draft-fields';
import { useContractForm } from '../../ui/use-contract-form';
import { useUpdateSandboxSettings } from '../../data/sandbox';
import { typedNumber } from './notify-input';
import { Allowed } from '../../shared/allowed';

type Field = 'delivery_waits_seconds' | 'delivery_max_attempts' | 'delivery_timeout_ms';
const FIELDS: readonly Field[] = ['delivery_waits_seconds', 'delivery_max_attempts', 'delivery_timeout_ms'];
type Draft = Record<Field, string>;

const draftOf = (s: SandboxSettings): Draft => ({
  delivery_waits_seconds: s.delivery_waits_seconds.join(', '),
  delivery_max_attempts: String(s.delivery_max_attempts),
  delivery_timeout_ms: String(s.delivery_timeout_ms),
});

/** The fields, wired to the draft by DraftFields. */
const WAITS_FIELD: readonly FieldSpec<Draft>[] = [
  {
    key: 'delivery_waits_seconds',
    id: 'delivery-waits',
    label: 'Waits before each retry (s)',
    hint: 'comma-separated; the last one repeats',
    mono: true,
  },
];
const LIMIT_FIELDS: readonly FieldSpec<Draft>[] = [
  {
    key: 'delivery_max_attempts',
    id: 'delivery-max-attempts',
    label: 'Most attempts',
    hint: 'the first included',
    inputMode: 'numeric',
    mono: true,
  },
  {
    key: 'delivery_timeout_ms',
    id: 'delivery-timeout',
    label: 'Timeout (ms)',
    hint: 'no answer within it counts as none',
    inputMode: 'numeric',
    mono: true,
  },
];

/** The guide's values (issue 27: "the guide's values as defaults"), for the restore button. */
const GUIDE: Draft = {
  delivery_waits_seconds: SERVICE_LADDER_WAITS_SECONDS.join(', '),
  delivery_max_attempts: String(SERVICE_LADDER_MAX_ATTEMPTS),
  delivery_timeout_ms: String(DEFAULT_DELIVERY_TIMEOUT_MS),
};

/**
 * The draft as the `sandbox.updateSettings` input: waits as a comma-separated list of seconds.
 * Text that is not a number stays text, so the contract's schema names it.
 */
export function settingsInputOf(d: Draft): MethodInput<'sandbox.updateSettings'> {
  const waits = d.delivery_waits_seconds.trim();
  return {
    delivery_waits_seconds: (waits === ''
      ? []
      : waits
          .split(/[\s,]+/)
          .filter(Boolean)
          .map(typedNumber)) as number[],
    delivery_max_attempts: typedNumber(d.delivery_max_attempts) as number,
    delivery_timeout_ms: typedNumber(d.delivery_timeout_ms) as number,
  };
}

/**
 * The delivery ladder as sandbox settings (issue 27 item 1): the waits before attempts 2, 3, …,
 * the most attempts and the timeout, the guide's values by default. Saved in the profile (the
 * core's `sandbox.updateSettings`), checked by the contract's schema while typing and refused by
 * the core naming the field otherwise. `--time-scale` still multiplies what is saved here.
 */
export function DeliverySettingsPanel({ settings }: { settings: SandboxSettings }) {
  const form = useContractForm({
    initial: () => draftOf(settings),
    fields: FIELDS,
    toInput: settingsInputOf,
    schema: schemas.SandboxSettings.partial(),
    mutation: useUpdateSandboxSettings(),
  });
  const saved = draftOf(settings);
  const changed = FIELDS.some((f) => form.draft[f] !== saved[f]);
  return (
    <section className="panel" aria-labelledby="delivery-settings-title" data-testid="delivery-settings">
      <h2 id="delivery-settings-title" className="panel-title">
        Delivery ladder <span className="panel-note">how the sandbox retries a notification</span>
      </h2>
      <form className="panel-body action-form" onSubmit={form.submit(() => undefined)} noValidate>
        <DraftFields specs={WAITS_FIELD} {...form} />
        <div className="notify-grid">
          <DraftFields specs={LIMIT_FIELDS} {...form} />
        </div>
        <p className="field-note muted">
          The service’s public guide: 1, 2, 4, 8, 16, 32 s, then every minute, at most 10 attempts, then
          manual processing. <code>--time-scale</code> multiplies every wait and timeout.
        </p>
        {form.unplaced ? (
          <ErrorPanel title="Not saved" error={form.unplaced} testId="delivery-settings-error" />
        ) : null}
        {/* sandbox.updateSettings is an operator's on a hub (team-roles.ts): a viewer only reads. */}
        <Allowed method="sandbox.updateSettings">
          <div className="form-actions">
            <button
              type="submit"
              className="btn btn-small btn-primary"
              disabled={!form.valid || !changed}
              data-testid="delivery-settings-save"
            >
              Save
            </button>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => form.edit(GUIDE)}
              data-testid="delivery-settings-guide"
            >
              The guide’s values
            </button>
          </div>
        </Allowed>
      </form>
    </section>
  );
}
