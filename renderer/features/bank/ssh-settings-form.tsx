import { schemas, type MethodInput } from '../../../electron/contract';
import type { SshTunnelView } from '../../../electron/contract/schemas/tunnel';
import { ErrorPanel } from '../../shared/error-panel';
import { TextAreaField } from '../../ui/text-area-field';
import { DraftFields, type FieldSpec } from '../../ui/draft-fields';
import { useContractForm } from '../../ui/use-contract-form';
import { useSaveSsh } from '../../data/tunnel';

interface Draft {
  identity_file: string;
  known_hosts_file: string;
  /** One ssh argument per line (an argv: nothing goes through a shell). */
  options: string;
  remote_port: string;
}

const FIELDS = ['identity_file', 'known_hosts_file', 'options', 'remote_port'] as const;

const pathFields = (view: SshTunnelView | undefined): FieldSpec<Draft>[] => [
  {
    key: 'identity_file',
    id: 'bank-ssh-identity',
    label: 'Identity file (path of the private key)',
    placeholder: '~/.ssh/id_ed25519',
    spellCheck: false,
    mono: true,
  },
  {
    key: 'known_hosts_file',
    id: 'bank-ssh-known-hosts',
    label: 'Your known-hosts file (optional)',
    placeholder: '~/.ssh/known_hosts',
    note: view ? `Confirmed host keys are pinned in ${view.known_hosts_path}, read first.` : undefined,
    spellCheck: false,
    mono: true,
  },
];

const PORT_FIELD: FieldSpec<Draft>[] = [
  {
    key: 'remote_port',
    id: 'bank-ssh-remote-port',
    label: 'Remote port (empty: the ssh host picks a free one)',
    inputMode: 'numeric',
    mono: true,
  },
];

function draftOf(view: SshTunnelView | undefined): Draft {
  const s = view?.settings;
  return {
    identity_file: s?.identity_file ?? '',
    known_hosts_file: s?.known_hosts_file ?? '',
    options: (s?.options ?? []).join('\n'),
    remote_port: s?.remote_port != null ? String(s.remote_port) : '',
  };
}

function toInput(d: Draft): MethodInput<'tunnel.saveSsh'> {
  const port = d.remote_port.trim();
  return {
    identity_file: d.identity_file.trim() === '' ? null : d.identity_file,
    known_hosts_file: d.known_hosts_file.trim() === '' ? null : d.known_hosts_file,
    options: d.options
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== ''),
    remote_port: port === '' ? null : /^\d+$/.test(port) ? Number(port) : Number.NaN,
  };
}

/**
 * The ssh tunnel's settings of the active environment on the Bank page (issue 26 item 4):
 * paths only (the contract refuses a key pasted as text), options one argument per line, a
 * fixed remote port or none. DETS_SSH_COMMAND, when set, is named: its options come first on
 * ssh's command line, and ssh keeps the first value of each option.
 */
export function SshSettingsForm({
  view,
  environmentName,
}: {
  view: SshTunnelView | undefined;
  environmentName: string | null;
}) {
  const save = useSaveSsh();
  const form = useContractForm({
    initial: () => draftOf(view),
    fields: FIELDS,
    toInput,
    schema: schemas.SaveSshTunnelInput,
    mutation: save,
  });
  const { draft, edit, errorFor } = form;
  return (
    <form
      className="ssh-settings"
      aria-label="ssh tunnel settings"
      onSubmit={form.submit(() => undefined)}
      noValidate
      data-testid="bank-ssh-settings"
    >
      <p className="muted">
        Kept for the environment {environmentName ? <strong>{environmentName}</strong> : 'in use'}; the next
        ssh attempt uses them, without a restart.
      </p>
      {view?.command_override ? (
        <p className="field-note" role="note" data-testid="bank-ssh-override">
          DETS_SSH_COMMAND is set (<code>{view.command_override}</code>): it comes first on ssh&apos;s command
          line, so where it sets an option, its value wins over these settings.
        </p>
      ) : null}
      <DraftFields
        specs={pathFields(view)}
        draft={draft}
        edit={edit}
        errorFor={(f) => errorFor(f as (typeof FIELDS)[number])}
      />
      <TextAreaField
        id="bank-ssh-options"
        label="Extra ssh options, one argument per line"
        hint="e.g. -J on one line and bastion.example on the next; ProxyCommand, LocalCommand and the like are refused"
        rows={3}
        value={draft.options}
        onChange={(options) => edit({ options })}
        error={errorFor('options')}
        spellCheck={false}
      />
      <DraftFields
        specs={PORT_FIELD}
        draft={draft}
        edit={edit}
        errorFor={(f) => errorFor(f as (typeof FIELDS)[number])}
      />
      {form.unplaced ? (
        <ErrorPanel title="ssh settings not saved" error={form.unplaced} testId="bank-ssh-error" />
      ) : null}
      <div className="form-actions">
        <button
          type="submit"
          className="btn btn-small btn-primary"
          disabled={!form.valid || save.isPending}
          data-testid="bank-ssh-save"
        >
          Save ssh settings
        </button>
        {save.isSuccess ? (
          <span className="muted" role="status" data-testid="bank-ssh-saved">
            Saved
          </span>
        ) : null}
      </div>
    </form>
  );
}
