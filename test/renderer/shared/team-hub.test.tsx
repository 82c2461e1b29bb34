// @vitest-environment jsdom
/**
 * Issue 30 item 2 and 3, the page's part: the start page's "Attach to a team hub…" sends the hub
 * URL and the member token once, shows the hub, the member, the role and the live link (a lost
 * one with its retry), detaches; a refusal lands under the field it names; and after submission
 * the token is nowhere the page keeps state (the input, the DOM, react-query's caches).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { badArgument, type MethodInput } from '../../../electron/contract';
import type { TeamConnection } from '../../../electron/contract/schemas/team';
import { ClientProvider } from '../../../renderer/api/client-context';
import { desktopClient } from '../../../renderer/api/client';
import { createQueryClient } from '../../../renderer/app/query-client';
import { useTeamLiveUpdates } from '../../../renderer/data/team';
import { TeamHubPanel } from '../../../renderer/shared/team-hub';
import { contractApi } from '../support/contract-api';
import '../support/jsdom-gaps';

const TOKEN = 'dets_m_' + 'S3cr3tT0k3n'.repeat(4);
const DETACHED: TeamConnection = {
  state: 'detached',
  hub_url: null,
  hub: null,
  member: null,
  role: null,
  remembered: false,
  detail: null,
  retry_in_ms: null,
  attempts: 0,
  can_attach: true,
};
const ATTACHED: TeamConnection = {
  ...DETACHED,
  state: 'connected',
  hub_url: 'https://hub.bank.example:7300/',
  hub: 'hub.bank.example:7300',
  member: 'olga@bank.example',
  role: 'operator',
  remembered: true,
};

function Live() {
  useTeamLiveUpdates();
  return <TeamHubPanel />;
}

function setup(initial: TeamConnection = DETACHED) {
  let now = initial;
  const team = {
    connection: vi.fn(async () => now),
    attach: vi.fn(async (input: MethodInput<'team.attach'>) => {
      if (input.token !== TOKEN)
        throw badArgument('team.attach: token: the hub refused this member token', 'token');
      now = ATTACHED;
      return now;
    }),
    detach: vi.fn(async () => (now = DETACHED)),
    session: vi.fn(async () => ({ hub: null, member: null, role: 'admin' as const })),
  };
  const { api, emit } = contractApi({ team });
  const queryClient = createQueryClient();
  render(
    <QueryClientProvider client={queryClient}>
      <ClientProvider client={desktopClient(api)}>
        <Live />
      </ClientProvider>
    </QueryClientProvider>,
  );
  return { team, emit, queryClient };
}

const type = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });

afterEach(() => cleanup());

describe('the start page’s team hub panel', () => {
  it('attaches with a URL and a token, shows the hub and role, and keeps the token nowhere', async () => {
    const { team, queryClient } = setup();
    fireEvent.click(await screen.findByTestId('team-attach-open'));
    type('team-hub-url', 'https://hub.bank.example:7300');
    type('team-token', TOKEN);
    fireEvent.click(screen.getByTestId('team-attach-connect'));
    await screen.findByTestId('team-hub-name');
    expect(team.attach).toHaveBeenCalledWith({ hub_url: 'https://hub.bank.example:7300', token: TOKEN });
    expect(screen.getByTestId('team-hub').textContent).toContain('olga@bank.example (operator)');
    expect(screen.getByTestId('team-link').textContent).toBe('Live.');
    expect(screen.queryByTestId('team-attach-dialog')).toBeNull();
    // Item 3: nothing the page keeps holds the token after submission.
    expect(document.body.innerHTML.includes(TOKEN)).toBe(false);
    const cached = JSON.stringify([
      queryClient
        .getQueryCache()
        .getAll()
        .map((q) => q.state),
      queryClient
        .getMutationCache()
        .getAll()
        .map((m) => m.state),
    ]);
    expect(cached.includes(TOKEN)).toBe(false);
  });

  it('puts a refused token under the token field and clears what was typed', async () => {
    setup();
    fireEvent.click(await screen.findByTestId('team-attach-open'));
    type('team-hub-url', 'https://hub.bank.example:7300');
    type('team-token', 'dets_m_wrong');
    fireEvent.click(screen.getByTestId('team-attach-connect'));
    await waitFor(() =>
      expect(document.getElementById('team-token-note')?.textContent).toContain('refused this member token'),
    );
    expect((screen.getByTestId('team-token') as HTMLInputElement).value).toBe('');
    expect(screen.queryByTestId('team-hub-name')).toBeNull();
  });

  it('says a lost link and its retry as team.changed tells it, and detaches', async () => {
    const { team, emit } = setup(ATTACHED);
    await screen.findByTestId('team-hub-name');
    emit('team.changed', {
      ...ATTACHED,
      state: 'retrying',
      detail: 'connect ECONNREFUSED 127.0.0.1:7300',
      retry_in_ms: 4000,
      attempts: 3,
    });
    await waitFor(() =>
      expect(screen.getByTestId('team-link').textContent).toBe(
        'Connection lost (connect ECONNREFUSED 127.0.0.1:7300); retrying in 4 s (attempt 3).',
      ),
    );
    fireEvent.click(screen.getByTestId('team-detach'));
    await screen.findByTestId('team-attach-open');
    expect(team.detach).toHaveBeenCalled();
  });

  it('is not offered where the host cannot attach (a hub, an attached page)', async () => {
    const { team } = setup({ ...DETACHED, can_attach: false });
    await waitFor(() => expect(team.connection).toHaveBeenCalled());
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId('team-hub')).toBeNull();
  });
});
