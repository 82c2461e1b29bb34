// @vitest-environment jsdom
/**
 * The Bank page's public URL panel and the header's tunnel pill (issue 14): what to register,
 * where the URL comes from, the tunnel toggle, "Test from outside", and a drop shown live.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { ProbeResult, TunnelStatus } from '../../../../electron/contract/schemas/tunnel';
import { useAppLiveUpdates } from '../../../../renderer/app/live-updates';
import { PublicUrlPanel } from '../../../../renderer/features/bank/public-url-panel';
import { TunnelPill } from '../../../../renderer/features/bank/tunnel-pill';
import { contractApi } from '../../support/contract-api';
import { fakeApi, renderWithClient } from '../../support/render';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const PUBLIC = 'https://rare-words-go-here.trycloudflare.com';

function status(extra: Partial<TunnelStatus> = {}): TunnelStatus {
  return {
    public_url: PUBLIC,
    public_url_source: 'tunnel',
    register: {
      bank_auth_url: PUBLIC,
      notification_urls: ['pay-in', 'pay-out', 'transfer'].map((n) => `${PUBLIC}/api/svc/notify/${n}`),
    },
    saved_public_url: null,
    tunnel: {
      client: 'cloudflared',
      target: 'cloudflared',
      state: 'up',
      url: PUBLIC,
      since: '2026-01-01T10:00:00.000Z',
      attempts: 0,
      last_error: null,
      next_retry_at: null,
      pid: 4242,
    },
    listener: {
      url: 'http://127.0.0.1:7301',
      tls: false,
      host: '127.0.0.1',
      reachable_on: ['127.0.0.1'],
      loopback_only: true,
    },
    probe: null,
    ...extra,
  };
}

function LiveUpdates() {
  useAppLiveUpdates();
  return null;
}

function setup(initial: TunnelStatus) {
  const { handlers } = fakeApi();
  const probe: ProbeResult = {
    at: '2026-01-01T10:00:01.000Z',
    url: `${PUBLIC}/.well-known/dets-console/probe/x`,
    outcome: 'reachable',
    rtt_ms: 84.2,
    status: 200,
    detail: "this console's bank listener received the marker",
  };
  const tunnel = {
    status: vi.fn(async () => initial),
    probe: vi.fn(async () => probe),
    start: vi.fn(async () => initial),
    stop: vi.fn(async () =>
      status({ tunnel: { ...initial.tunnel!, state: 'stopped', url: null, pid: null } }),
    ),
    setPublicUrl: vi.fn(async ({ url }: { url: string | null }) => status({ saved_public_url: url })),
  };
  const { api: full, emit } = contractApi({ ...handlers, tunnel });
  renderWithClient(
    <>
      <LiveUpdates />
      <TunnelPill />
      <PublicUrlPanel />
    </>,
    full,
  );
  return { tunnel, emit };
}

describe('PublicUrlPanel', () => {
  it('shows the public URL, its source and what to register, and tests from outside on demand', async () => {
    const { tunnel } = setup(status());
    await waitFor(() => expect(screen.getByTestId('bank-public-url').textContent).toBe(PUBLIC));
    expect(screen.getByTestId('bank-public').textContent).toContain('from the running tunnel');
    expect(screen.getByTestId('bank-register').textContent).toContain(`${PUBLIC}/api/svc/notify/transfer`);
    expect(screen.getByTestId('bank-tunnel-state').textContent).toBe(`cloudflared: up at ${PUBLIC}`);
    fireEvent.click(screen.getByTestId('bank-probe-run'));
    await waitFor(() =>
      expect(screen.getByTestId('bank-probe-result').getAttribute('data-outcome')).toBe('reachable'),
    );
    expect(screen.getByTestId('bank-probe-result').textContent).toContain('(84.2 ms)');
    expect(tunnel.probe).toHaveBeenCalledTimes(1);
  });

  it('starts an ssh tunnel with the host typed, and stops a running one', async () => {
    const { tunnel } = setup(
      status({ tunnel: null, public_url: null, public_url_source: null, register: null }),
    );
    await waitFor(() => expect(screen.getByTestId('bank-public-url-none')).toBeTruthy());
    fireEvent.change(screen.getByTestId('bank-tunnel-client'), { target: { value: 'ssh' } });
    fireEvent.change(screen.getByTestId('bank-tunnel-ssh'), {
      target: { value: 'me@tunnel.example.com:2222' },
    });
    fireEvent.click(screen.getByTestId('bank-tunnel-start'));
    await waitFor(() =>
      expect(tunnel.start).toHaveBeenCalledWith({ target: 'ssh:me@tunnel.example.com:2222' }),
    );
  });

  it('shows a drop in the header pill as it happens', async () => {
    const { emit } = setup(status());
    await waitFor(() => expect(screen.getByTestId('tunnel-pill').getAttribute('data-state')).toBe('up'));
    act(() =>
      emit(
        'tunnel.changed',
        status({
          public_url: null,
          tunnel: {
            ...status().tunnel!,
            state: 'down',
            url: null,
            pid: null,
            last_error: 'cloudflared: no more connections active and exiting',
            next_retry_at: '2026-01-01T10:00:05.000Z',
          },
        }),
      ),
    );
    await waitFor(() => expect(screen.getByTestId('tunnel-pill').getAttribute('data-state')).toBe('down'));
    expect(screen.getByTestId('tunnel-pill').getAttribute('title')).toContain('no more connections active');
  });

  it('saves the profile public URL', async () => {
    const { tunnel } = setup(status());
    await waitFor(() => expect(screen.getByTestId('bank-public-url-input')).toBeTruthy());
    fireEvent.change(screen.getByTestId('bank-public-url-input'), {
      target: { value: 'https://bank-dev.example.com' },
    });
    fireEvent.click(screen.getByTestId('bank-public-url-save'));
    await waitFor(() =>
      expect(tunnel.setPublicUrl).toHaveBeenCalledWith({ url: 'https://bank-dev.example.com' }),
    );
  });
});
