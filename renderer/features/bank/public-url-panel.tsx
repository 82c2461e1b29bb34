import { useState } from 'react';
import type { ProbeResult, TunnelStatus } from '../../../electron/contract/schemas/tunnel';
import { CopyButton } from '../../shared/copy-button';
import { ProbeResultLine, PUBLIC_URL_SOURCE, RegisterTable } from '../../shared/public-url';
import { ErrorPanel } from '../../shared/error-panel';
import { Field } from '../../shared/field';
import { useProbe, useSetPublicUrl, useStartTunnel, useStopTunnel, useTunnelStatus } from '../../data/tunnel';
import { Allowed } from '../../shared/allowed';
import { useActiveEnvironment } from '../../data/environments';
import { HostKeyPanel } from './host-key-dialog';
import { SshSettingsForm } from './ssh-settings-form';

/**
 * Where the real service reaches the bank endpoints (issue 14): the public URL and what to
 * register with it, a tunnel through a client the user has, "Test from outside", and which
 * interfaces the listener answers on.
 */
export function PublicUrlPanel() {
  const status = useTunnelStatus();
  const s = status.data;
  if (status.error)
    return <ErrorPanel title="Public URL unavailable" error={status.error} testId="bank-public-error" />;
  if (!s) return null;
  return (
    <section className="panel" aria-labelledby="bank-public-title" data-testid="bank-public">
      <h2 id="bank-public-title" className="panel-title">
        Public URL
        <span className="panel-spacer" />
        {s.public_url ? <CopyButton text={() => s.public_url!} testId="bank-public-url-copy" /> : null}
      </h2>
      <div className="panel-body">
        {s.public_url ? (
          <p>
            <code data-testid="bank-public-url">{s.public_url}</code>{' '}
            <span className="muted">from {PUBLIC_URL_SOURCE[s.public_url_source ?? 'profile']}</span>
          </p>
        ) : (
          <p className="muted" data-testid="bank-public-url-none">
            No public URL: the real service cannot reach the bank endpoints on this machine. Start a tunnel
            below, or give the URL of your own front (serve --public-url).
          </p>
        )}
        {s.register ? <RegisterTable register={s.register} /> : null}
        <TunnelControls status={s} />
        <ProbeLine probe={s.probe} />
        <SavedUrlField saved={s.saved_public_url} />
        <ListenerReach listener={s.listener} />
      </div>
    </section>
  );
}

function TunnelControls({ status }: { status: TunnelStatus }) {
  const [client, setClient] = useState<'ssh' | 'cloudflared' | 'ngrok'>(
    status.tunnel?.client ?? 'cloudflared',
  );
  const [sshHost, setSshHost] = useState('');
  const start = useStartTunnel();
  const stop = useStopTunnel();
  const environment = useActiveEnvironment();
  const t = status.tunnel;
  const running = t !== null && t.state !== 'stopped' && t.state !== 'failed';
  const target = client === 'ssh' ? `ssh:${sshHost.trim()}` : client;
  return (
    <div className="tunnel-controls" data-testid="bank-tunnel">
      <Field id="bank-tunnel-client" label="Tunnel through" error={start.error?.message}>
        <select
          id="bank-tunnel-client"
          className="input"
          value={client}
          disabled={running}
          onChange={(e) => setClient(e.target.value as typeof client)}
          data-testid="bank-tunnel-client"
        >
          <option value="cloudflared">cloudflared (quick tunnel)</option>
          <option value="ngrok">ngrok</option>
          <option value="ssh">ssh to a host you control</option>
        </select>
      </Field>
      {client === 'ssh' ? (
        <Field id="bank-tunnel-ssh" label="[user@]host[:port]">
          <input
            id="bank-tunnel-ssh"
            className="input"
            value={sshHost}
            disabled={running}
            spellCheck={false}
            placeholder="me@tunnel.example.com:22"
            onChange={(e) => setSshHost(e.target.value)}
            data-testid="bank-tunnel-ssh"
          />
        </Field>
      ) : null}
      {client === 'ssh' ? (
        // Keyed by environment: switching the header's environment shows that one's settings.
        <Allowed method="tunnel.saveSsh">
          <SshSettingsForm
            key={status.ssh?.environment_id ?? 'none'}
            view={status.ssh}
            environmentName={environment?.name ?? null}
          />
        </Allowed>
      ) : null}
      <Allowed method="tunnel.start">
        <div className="form-actions">
          {running ? (
            <button
              type="button"
              className="btn btn-small"
              disabled={stop.isPending}
              onClick={() => stop.mutate()}
              data-testid="bank-tunnel-stop"
            >
              Stop tunnel
            </button>
          ) : (
            <button
              type="button"
              className="btn btn-small btn-primary"
              disabled={start.isPending || (client === 'ssh' && sshHost.trim() === '')}
              onClick={() => start.mutate(target)}
              data-testid="bank-tunnel-start"
            >
              {start.isPending ? 'Starting… (up to 30 s)' : 'Start tunnel'}
            </button>
          )}
        </div>
      </Allowed>
      {t ? (
        <p
          className={`field-note tunnel-state tunnel-${t.state}`}
          role="status"
          data-testid="bank-tunnel-state"
        >
          {t.client}: {t.state}
          {t.url ? ` at ${t.url}` : ''}
          {t.state !== 'up' && t.last_error ? ` — ${t.last_error}` : ''}
          {t.next_retry_at ? ` (next attempt ${t.next_retry_at})` : ''}
        </p>
      ) : null}
      {t?.failure ? (
        <p className="field-note" data-testid="bank-tunnel-action" data-code={t.failure.code}>
          What to do: {t.failure.action}
        </p>
      ) : null}
      {status.host_key ? <HostKeyPanel offer={status.host_key} /> : null}
    </div>
  );
}

function ProbeLine({ probe }: { probe: ProbeResult | null }) {
  const run = useProbe();
  return (
    <div className="tunnel-probe" data-testid="bank-probe">
      <Allowed method="tunnel.probe">
        <button
          type="button"
          className="btn btn-small"
          disabled={run.isPending}
          onClick={() => run.mutate()}
          data-testid="bank-probe-run"
          title="GET <public URL>/.well-known/dets-console/probe/<one-time marker>, and check this listener received it"
        >
          {run.isPending ? 'Testing…' : 'Test from outside'}
        </button>
      </Allowed>
      {probe ? <ProbeResultLine probe={probe} /> : null}
    </div>
  );
}

function SavedUrlField({ saved }: { saved: string | null }) {
  const [text, setText] = useState(saved ?? '');
  const set = useSetPublicUrl();
  return (
    <div className="public-url-saved">
      <Field
        id="bank-public-url-input"
        label="Your own public URL (saved in this profile)"
        error={set.error?.message}
      >
        <input
          id="bank-public-url-input"
          className="input"
          value={text}
          spellCheck={false}
          placeholder="https://bank-dev.example.com"
          onChange={(e) => {
            setText(e.target.value);
            set.reset();
          }}
          data-testid="bank-public-url-input"
        />
      </Field>
      <Allowed method="tunnel.setPublicUrl">
        <div className="form-actions">
          <button
            type="button"
            className="btn btn-small btn-primary"
            disabled={set.isPending || text.trim() === (saved ?? '')}
            onClick={() => set.mutate(text.trim() === '' ? null : text.trim())}
            data-testid="bank-public-url-save"
          >
            Save
          </button>
        </div>
      </Allowed>
    </div>
  );
}

function ListenerReach({ listener }: { listener: TunnelStatus['listener'] }) {
  return (
    <div className="listener-reach" data-testid="bank-listener-reach">
      <p className="muted">
        The bank endpoints answer {listener.tls ? 'over HTTPS' : 'over plain HTTP'} on:{' '}
        {listener.reachable_on.length > 0 ? listener.reachable_on.join(', ') : 'nothing (not listening)'}
      </p>
      {!listener.loopback_only ? (
        <p className="field-note field-error" role="status" data-testid="bank-listener-exposed">
          Not loopback only: anyone who can reach these addresses can call the bank endpoints and read what
          they answer (customer external_id, phone and key).
        </p>
      ) : null}
    </div>
  );
}
