import { useState } from 'react';
import type { MethodOutput } from '../../electron/contract';
import { useClient } from '../api/client-context';
import { useRequestRecovery, useStoreHealth } from '../data/app';
import { CopyButton } from '../shared/copy-button';
import { ErrorPanel } from '../shared/error-panel';
import { Dialog } from '../ui/dialog';
import { Allowed } from '../shared/allowed';

/**
 * Header pill (issue 12): the event store cannot write (a full disk, an I/O error: notifications
 * get 500 until it recovers by itself) or its database is damaged. Nothing shows while it is
 * sound; store.changed keeps it current. It is a button: its dialog says what happened, what it
 * means for the bank endpoints, and what to do (for damage, the recovery command for this
 * profile, ready to copy).
 */
export function StoreHealthPill() {
  const [open, setOpen] = useState(false);
  const health = useStoreHealth().data;
  if (!health || health.state === 'ok') return null;
  const failing = health.state === 'failing';
  return (
    <span role="status">
      <button
        type="button"
        className="behaviours-pill store-health-pill"
        data-testid="store-health-pill"
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
        title={
          failing
            ? `Events cannot be written to ${health.file} since ${health.since}: ${health.detail ?? ''}. Notifications are answered 500 until writing works again; nothing acknowledged is lost.`
            : `${health.file} is damaged (${health.detail ?? ''}). What can be read is shown; run \`dets-console store recover\` with the console stopped.`
        }
      >
        <span aria-hidden="true">!</span> {failing ? 'storage failing' : 'database damaged'}
      </button>
      {open && <StoreHealthDialog health={health} onClose={() => setOpen(false)} />}
    </span>
  );
}

/** The profile folder holding `file` (the database is `<data-dir>/console.db`). */
function folderOf(file: string): string {
  const cut = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return cut > 0 ? file.slice(0, cut) : file;
}

/**
 * A path as one shell word: as is when it holds only plain path characters, else in double quotes
 * (a Windows path's backslashes kept as they are, as cmd and PowerShell read them; escaped for sh).
 */
function shellWord(s: string): string {
  if (/^[\w@%+=:,./\\-]+$/.test(s)) return s;
  if (/^[A-Za-z]:\\/.test(s)) return `"${s.replace(/"/g, '')}"`;
  return `"${s.replace(/(["\\$`])/g, '\\$1')}"`;
}

type StoreHealth = MethodOutput<'events.health'>;

function StoreHealthDialog({ health, onClose }: { health: StoreHealth; onClose: () => void }) {
  const failing = health.state === 'failing';
  const command = `dets-console store recover --data-dir ${shellWord(folderOf(health.file))}`;
  return (
    <Dialog
      title={failing ? 'Events cannot be written' : 'The profile database is damaged'}
      onClose={onClose}
      testId="store-health-dialog"
    >
      <dl className="store-health-facts">
        <dt>Database</dt>
        <dd>
          <code>{health.file}</code>
        </dd>
        <dt>Since</dt>
        <dd>{health.since}</dd>
        <dt>{failing ? 'Error' : 'Found'}</dt>
        <dd data-testid="store-health-detail">{health.detail ?? '—'}</dd>
      </dl>
      {failing ? (
        <>
          <p>
            Notifications are answered 500 while writing fails: none is acknowledged without being stored, and
            nothing already acknowledged is lost. Callbacks are still answered; their events may not be
            recorded until writing works again.
          </p>
          <p>
            Nothing needs doing here: the console retries by itself and says so once writing works again. If
            the disk is full, free some space.
          </p>
        </>
      ) : (
        <>
          <p>
            What can still be read is shown and served, and nothing is deleted. The console can move
            everything readable into a fresh database when it next starts, before anything opens the file:
          </p>
          <RecoverAtNextStart />
          <p>Or, from a terminal:</p>
          <ol>
            <li>
              Stop the console (quit the app, or stop <code>serve</code>).
            </li>
            <li>
              Run <code data-testid="store-health-command">{command}</code>{' '}
              <CopyButton text={() => command} testId="store-health-copy" label="Copy command" />
            </li>
            <li>Start the console again.</li>
          </ol>
          <p>
            The damaged file is kept beside the new one as <code>console.db.damaged-…</code>. From a checkout
            of DETS Console the command is <code>npx dets-console …</code>.
          </p>
        </>
      )}
      <div className="form-actions">
        <button type="button" className="btn" onClick={onClose} data-autofocus>
          Close
        </button>
      </div>
    </Dialog>
  );
}

/** events.requestRecovery, then what to do: restart the app, or `serve`. */
function RecoverAtNextStart() {
  const { mode } = useClient();
  const request = useRequestRecovery();
  const restart =
    mode === 'desktop'
      ? 'Quit DETS Console and open it again (its window opens once the recovery is done: about a minute for a million events)'
      : 'Stop serve (Ctrl-C) and start it again with the same --data-dir (its ready line comes once the recovery is done: about a minute for a million events)';
  if (request.data)
    return (
      <p role="status" data-testid="store-recover-requested">
        Recovery asked for at {request.data.requested_at}. {restart}: it runs first, and the header stops
        saying &quot;database damaged&quot; once it has. The damaged file is kept beside the new one.
      </p>
    );
  return (
    <>
      <Allowed method="events.requestRecovery">
        <div className="form-actions">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="store-recover-request"
            disabled={request.isPending}
            onClick={() => request.mutate()}
          >
            Recover at next start
          </button>
        </div>
      </Allowed>
      {request.error && (
        <ErrorPanel
          title="The recovery could not be asked for"
          error={request.error}
          testId="store-recover-error"
        />
      )}
    </>
  );
}
