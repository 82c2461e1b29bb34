/**
 * Attaching this console to a team hub (issue 30 item 2; DESIGN.md "Team hub"), on the start
 * page: the hub's URL and the member token `team add` printed, then the hub's name, the member,
 * the role and the live link (a lost one retried with backoff, and said), and Detach. Shown only
 * where the host can attach (the desktop app, `serve` on a laptop): a hub, or a page already
 * attached through `dets-console attach`, has nothing to offer here.
 *
 * The token field is a password input whose value is cleared on submission; the token is in no
 * store, no query and no mutation cache (data/team.ts useAttach).
 */
import { useState, type FormEvent } from 'react';
import type { TeamConnection } from '../../electron/contract/schemas/team';
import { useAttach, useDetach, useTeamConnection } from '../data/team';
import { Dialog } from '../ui/dialog';
import { TextField } from '../ui/text-field';
import { DialogActions } from './dialog-actions';
import { ErrorPanel } from './error-panel';
import { fieldOfError } from './field-errors';

const FIELDS = ['hub_url', 'token'] as const;

/** The start page's team hub panel. */
export function TeamHubPanel() {
  const connection = useTeamConnection();
  const [open, setOpen] = useState(false);
  const c = connection.data;
  if (!c || !c.can_attach) return null;
  return (
    <section className="panel team-hub" data-testid="team-hub" data-state={c.state}>
      <div className="panel-body">
        {c.state === 'detached' ? <Detached c={c} onOpen={() => setOpen(true)} /> : <Attached c={c} />}
      </div>
      {open ? <AttachDialog onClose={() => setOpen(false)} /> : null}
    </section>
  );
}

function Detached({ c, onOpen }: { c: TeamConnection; onOpen: () => void }) {
  return (
    <>
      <p>
        Working in a team? Attach this console to your team’s hub: its callbacks and notifications, live, with
        the actions your role allows.{' '}
        <button type="button" className="btn btn-small" onClick={onOpen} data-testid="team-attach-open">
          Attach to a team hub…
        </button>
      </p>
      {c.detail ? (
        <p className="text-warn" role="status" data-testid="team-detail">
          {c.detail}
        </p>
      ) : null}
    </>
  );
}

/** Seconds, for the retry line. */
function inSeconds(ms: number): string {
  return `${Math.max(1, Math.round(ms / 1000))} s`;
}

function Attached({ c }: { c: TeamConnection }) {
  const detach = useDetach();
  return (
    <>
      <p>
        Attached to the team hub <strong data-testid="team-hub-name">{c.hub}</strong> as{' '}
        <strong>{c.member}</strong> ({c.role}).{' '}
        {c.state === 'connected' ? (
          <span className="text-pass" data-testid="team-link">
            Live.
          </span>
        ) : (
          <span className="text-warn" role="status" data-testid="team-link">
            Connection lost ({c.detail}); retrying in {inSeconds(c.retry_in_ms ?? 0)} (attempt {c.attempts}).
          </span>
        )}{' '}
        <button
          type="button"
          className="btn btn-small"
          disabled={detach.isPending}
          onClick={() => detach.mutate()}
          data-testid="team-detach"
        >
          Detach
        </button>
      </p>
      {c.state === 'connected' && c.detail ? (
        <p className="text-warn" data-testid="team-detail">
          {c.detail}
        </p>
      ) : null}
      {detach.error ? (
        <ErrorPanel title="Not detached" error={detach.error} testId="team-detach-error" />
      ) : null}
    </>
  );
}

function AttachDialog({ onClose }: { onClose: () => void }) {
  const [hubUrl, setHubUrl] = useState('');
  const [token, setToken] = useState('');
  const { attach, pending, error, reset } = useAttach();
  const refused = error ? fieldOfError(error, FIELDS) : null;
  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    const sent = token;
    // The page lets go of the token as it is sent (DESIGN.md "Secrets").
    setToken('');
    void attach(hubUrl, sent).then((ok) => {
      if (ok) onClose();
    });
  };
  return (
    <Dialog title="Attach to a team hub" onClose={onClose} testId="team-attach-dialog">
      <form onSubmit={submit} noValidate>
        <TextField
          id="team-hub-url"
          label="Hub URL"
          hint="what your team’s admin gave you, e.g. https://dets-hub.staging.bank.example:7300"
          value={hubUrl}
          onChange={(v) => {
            reset();
            setHubUrl(v);
          }}
          error={refused?.field === 'hub_url' ? refused.message : undefined}
          mono
          autoComplete="url"
        />
        <TextField
          id="team-token"
          label="Member token"
          hint="printed once by dets-console team add; kept in the OS keychain"
          type="password"
          value={token}
          onChange={(v) => {
            reset();
            setToken(v);
          }}
          error={refused?.field === 'token' ? refused.message : undefined}
          mono
          autoComplete="off"
        />
        {error && refused?.field === null ? (
          <ErrorPanel title="Not attached" error={error} testId="team-attach-error" />
        ) : null}
        <DialogActions
          small
          onCancel={onClose}
          cancelTestId="team-attach-cancel"
          confirmLabel={pending ? 'Connecting…' : 'Connect'}
          confirmTestId="team-attach-connect"
          confirmDisabled={pending || hubUrl.trim() === '' || token.trim() === ''}
          onConfirm={() => submit()}
        />
      </form>
    </Dialog>
  );
}
