// @vitest-environment jsdom
/**
 * The Bank page's ssh tunnel (issue 26 item 4): the environment's settings form (paths only: a
 * pasted key is refused before it is sent; options one argument per line; the core's refusal
 * under the field it names; DETS_SSH_COMMAND named when set), the host key confirmation dialog
 * (focus on the safe answer, Escape puts it off, Trust pins the exact fingerprint shown), a
 * changed key refused with both fingerprints, and each failure's "what to do".
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { ConsoleError } from '../../../../electron/contract';
import type { HostKeyOffer, TunnelStatus } from '../../../../electron/contract/schemas/tunnel';
import { PublicUrlPanel } from '../../../../renderer/features/bank/public-url-panel';
import { contractApi } from '../../support/contract-api';
import { fakeApi, renderWithClient } from '../../support/render';
import { memberSession } from '../../support/as-member';
import type { TeamRole } from '../../../../electron/contract/schemas/team';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const FP = 'SHA256:hNSzzLnyXyO2t3HjYsJ6gBccw/KzXWKYpGQN8uyRfLs';
const OLD = 'SHA256:se8ulbrW3QmjWO0MYDghDdUfBJZxx5qKlisEn8DX5Xg';
const HOST = '[tunnel.example.com]:2222';
const key = (fingerprint: string) => ({
  type: 'ED25519',
  bits: 256,
  fingerprint,
  line: `256 ${fingerprint} ${HOST} (ED25519)`,
});

function status(extra: Partial<TunnelStatus> = {}): TunnelStatus {
  return {
    public_url: null,
    public_url_source: null,
    register: null,
    saved_public_url: null,
    tunnel: {
      client: 'ssh',
      target: 'ssh:me@tunnel.example.com:2222',
      state: 'failed',
      url: null,
      since: '2026-01-01T10:00:00.000Z',
      attempts: 1,
      last_error: 'ssh: the host key of tunnel.example.com port 2222 is not known yet',
      next_retry_at: null,
      pid: null,
      failure: {
        code: 'host_key_unknown',
        message: 'the host key of tunnel.example.com port 2222 is not known yet',
        action: 'compare its fingerprint with the host’s owner and confirm it on the Bank page',
      },
    },
    listener: {
      url: 'http://127.0.0.1:7301',
      tls: false,
      host: '127.0.0.1',
      reachable_on: ['127.0.0.1'],
      loopback_only: true,
    },
    probe: null,
    host_key: null,
    ssh: {
      environment_id: 'env-1',
      settings: { identity_file: null, known_hosts_file: null, options: [], remote_port: null },
      command_override: null,
      known_hosts_path: '/profile/ssh/known_hosts',
      pinned: [],
    },
    ...extra,
  };
}

const unknownOffer: HostKeyOffer = {
  state: 'unknown',
  host: HOST,
  keys: [key(FP)],
  pinned: [],
  file: '/profile/ssh/known_hosts',
};

function setup(initial: TunnelStatus, over: Record<string, unknown> = {}, role?: TeamRole) {
  const { handlers } = fakeApi();
  const up = status({
    host_key: null,
    tunnel: {
      ...initial.tunnel!,
      state: 'up',
      url: 'http://tunnel.example.com:40123',
      pid: 7,
      failure: null,
    },
  });
  const tunnel = {
    status: vi.fn(async () => initial),
    start: vi.fn(async () => initial),
    stop: vi.fn(async () => initial),
    probe: vi.fn(),
    setPublicUrl: vi.fn(async () => initial),
    saveSsh: vi.fn(async (input: { identity_file: string | null }) =>
      status({ ssh: { ...initial.ssh!, settings: { ...initial.ssh!.settings, ...input } } }),
    ),
    trustHostKey: vi.fn(async () => up),
    unpinHostKey: vi.fn(async () => status({ host_key: { ...unknownOffer } })),
    ...over,
  };
  const env = {
    list: vi.fn(async () => ({
      active_id: 'env-1',
      environments: [
        {
          id: 'env-1',
          name: 'Staging',
          kind: 'real' as const,
          base_url: 'https://dets.staging.example',
          counterparty_guid: null,
          active_kid: null,
          default_obj: null,
          default_sub: null,
          service_jwks_url: null,
          effective_jwks_url: 'https://dets.staging.example/api/v1/.well-known/jwks.json',
        },
      ],
    })),
  };
  const team = role ? { team: { session: vi.fn(async () => memberSession(role)) } } : {};
  const { api } = contractApi({ ...handlers, tunnel, env, ...team });
  renderWithClient(<PublicUrlPanel />, api);
  return { tunnel };
}

async function sshForm() {
  await waitFor(() => expect(screen.getByTestId('bank-tunnel-client')).toBeTruthy());
  fireEvent.change(screen.getByTestId('bank-tunnel-client'), { target: { value: 'ssh' } });
  await waitFor(() => expect(screen.getByTestId('bank-ssh-settings')).toBeTruthy());
}

describe('the ssh settings form', () => {
  it('refuses a pasted private key before sending it, and saves paths and options as an argv', async () => {
    const { tunnel } = setup(status({ tunnel: null }));
    await sshForm();
    expect(screen.getByTestId('bank-ssh-settings').textContent).toContain('Staging');
    const identity = screen.getByLabelText('Identity file (path of the private key)');
    fireEvent.change(identity, {
      target: { value: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n' },
    });
    await waitFor(() => expect(identity.getAttribute('aria-invalid')).toBe('true'));
    expect(screen.getByTestId('bank-ssh-settings').textContent).toContain('looks like key material');
    expect((screen.getByTestId('bank-ssh-save') as HTMLButtonElement).disabled).toBe(true);

    fireEvent.change(identity, { target: { value: '~/.ssh/tunnel_ed25519' } });
    fireEvent.change(screen.getByLabelText('Extra ssh options, one argument per line'), {
      target: { value: '-J\nbastion.example\n\n-o\nServerAliveInterval=30' },
    });
    fireEvent.change(screen.getByLabelText('Remote port (empty: the ssh host picks a free one)'), {
      target: { value: '8443' },
    });
    fireEvent.submit(screen.getByTestId('bank-ssh-settings'));
    await waitFor(() =>
      expect(tunnel.saveSsh).toHaveBeenCalledWith({
        identity_file: '~/.ssh/tunnel_ed25519',
        known_hosts_file: null,
        options: ['-J', 'bastion.example', '-o', 'ServerAliveInterval=30'],
        remote_port: 8443,
      }),
    );
    await waitFor(() => expect(screen.getByTestId('bank-ssh-saved')).toBeTruthy());
  });

  it("shows the core's refusal under the field it names, and names DETS_SSH_COMMAND when set", async () => {
    setup(
      status({
        tunnel: null,
        ssh: { ...status().ssh!, command_override: 'ssh -i /keys/ci -o StrictHostKeyChecking=accept-new' },
      }),
      {
        saveSsh: vi.fn(async () => {
          throw new ConsoleError('BAD_ARGUMENT', 'known_hosts_file /nope: no such file', {
            field: 'known_hosts_file',
          });
        }),
      },
    );
    await sshForm();
    expect(screen.getByTestId('bank-ssh-override').textContent).toContain('ssh -i /keys/ci');
    const kh = screen.getByLabelText('Your known-hosts file (optional)');
    fireEvent.change(kh, { target: { value: '/nope' } });
    fireEvent.click(screen.getByTestId('bank-ssh-save'));
    await waitFor(() => expect(kh.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById('bank-ssh-known-hosts-note')?.textContent).toContain('no such file');
  });
});

describe('the host key dialog', () => {
  it('shows the fingerprint, starts on the safe answer, Escape puts it off, Trust pins exactly that key', async () => {
    const { tunnel } = setup(status({ host_key: unknownOffer }));
    const dialog = await screen.findByTestId('host-key-dialog');
    expect(screen.getByTestId('host-key-fingerprint').textContent).toBe(`256 ${FP} ${HOST} (ED25519)`);
    expect(dialog.textContent).toContain('/profile/ssh/known_hosts');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('host-key-cancel')));
    expect(screen.getByTestId('bank-tunnel-action').textContent).toContain('compare its fingerprint');

    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('host-key-dialog')).toBeNull());
    expect(tunnel.trustHostKey).not.toHaveBeenCalled();
    fireEvent.click(screen.getByText('Review it'));
    fireEvent.click(await screen.findByTestId('host-key-trust'));
    await waitFor(() => expect(tunnel.trustHostKey).toHaveBeenCalledWith({ host: HOST, fingerprint: FP }));
    await waitFor(() => expect(screen.queryByTestId('host-key-dialog')).toBeNull());
    expect(screen.getByTestId('bank-tunnel-state').textContent).toContain(
      'up at http://tunnel.example.com:40123',
    );
  });

  it('refuses a changed key loudly with both fingerprints, and unpins on request', async () => {
    const { tunnel } = setup(
      status({
        host_key: { ...unknownOffer, state: 'changed', pinned: [key(OLD)] },
        tunnel: {
          ...status().tunnel!,
          failure: { code: 'host_key_changed', message: 'CHANGED', action: 'ask the owner, then unpin' },
        },
      }),
    );
    const alert = await screen.findByTestId('bank-host-key-changed');
    expect(alert.getAttribute('role')).toBe('alert');
    expect(screen.getByTestId('bank-host-key-old').textContent).toContain(OLD);
    expect(screen.getByTestId('bank-host-key-new').textContent).toContain(FP);
    expect(screen.queryByTestId('host-key-trust')).toBeNull();
    fireEvent.click(screen.getByTestId('bank-host-key-unpin'));
    await waitFor(() => expect(tunnel.unpinHostKey).toHaveBeenCalledWith({ host: HOST }));
    // The new key is then asked about as an unknown one.
    expect(await screen.findByTestId('host-key-dialog')).toBeTruthy();
  });

  it.each(['viewer', 'operator'] as const)(
    'as %s on a hub: the unknown or changed key is shown, never asked to trust or unpin it (issue 30 item 1)',
    async (role) => {
      const { tunnel } = setup(status({ host_key: unknownOffer }), {}, role);
      const note = await screen.findByTestId('bank-host-key-admin');
      expect(note.textContent).toContain('an admin of this hub');
      expect(screen.getByTestId('host-key-fingerprint').textContent).toContain(FP);
      expect(screen.queryByTestId('host-key-dialog')).toBeNull();
      cleanup();
      setup(status({ host_key: { ...unknownOffer, state: 'changed', pinned: [key(OLD)] } }), {}, role);
      expect((await screen.findByTestId('bank-host-key-changed')).textContent).toContain('CHANGED');
      await waitFor(() => expect(screen.queryByTestId('bank-host-key-unpin')).toBeNull());
      expect(tunnel.trustHostKey).not.toHaveBeenCalled();
    },
  );
});
