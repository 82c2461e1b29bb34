// @vitest-environment jsdom
/**
 * Issue 30 item 3, "Routes are visible to the team": the Bank page's Routes panel lists the hub's
 * routes (member, claim, laptop, backend, up/down; the hub when several share a database), follows `team.rerouted` without asking
 * again, offers "Add route" only on the page `attach --forward-to` serves (its glob checked by
 * the contract's globProblem as typed, a refusal shown under the field), and hides Add and Remove
 * from a viewer; outside a hub there is no panel.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { badArgument, type MethodInput } from '../../../../electron/contract';
import type { RouteInfo, TeamRole } from '../../../../electron/contract/schemas/team';
import { ClientProvider } from '../../../../renderer/api/client-context';
import { desktopClient } from '../../../../renderer/api/client';
import { createQueryClient } from '../../../../renderer/app/query-client';
import { RoutesPanel } from '../../../../renderer/features/bank/routes-panel';
import { contractApi } from '../../support/contract-api';
import '../../support/jsdom-gaps';

const ALICE: RouteInfo = {
  id: 'r1',
  member: 'alice@bank.example',
  field: 'sub',
  glob: 'alice@*',
  attach: 'alice-laptop',
  forward_to: 'http://127.0.0.1:8080',
  since: '2026-11-27T10:00:00.000Z',
  up: true,
};

function setup(opts: { hub?: string | null; role?: TeamRole; forwardTo?: string; routes?: RouteInfo[] }) {
  let routes = opts.routes ?? [ALICE];
  const team = {
    session: vi.fn(async () => ({
      hub: opts.hub === undefined ? 'hub.bank.example:7300' : opts.hub,
      member: 'bob@bank.example',
      role: opts.role ?? 'operator',
      ...(opts.forwardTo ? { forward_to: opts.forwardTo } : {}),
    })),
    routes: vi.fn(async () => routes),
    addRoute: vi.fn(async (input: MethodInput<'team.addRoute'>) => {
      if (input.glob === 'taken')
        throw badArgument('team.addRoute: glob: bob holds 50 routes already', 'glob');
      const r: RouteInfo = { ...ALICE, id: 'r2', member: 'bob@bank.example', ...input, attach: 'bob-laptop' };
      routes = [...routes, r];
      return r;
    }),
    removeRoute: vi.fn(async ({ id }: { id: string }) => {
      routes = routes.filter((r) => r.id !== id);
      return { removed: id };
    }),
  };
  const { api, emit } = contractApi({ team });
  render(
    <QueryClientProvider client={createQueryClient()}>
      <ClientProvider client={desktopClient(api)}>
        <RoutesPanel />
      </ClientProvider>
    </QueryClientProvider>,
  );
  return { team, emit };
}

const rows = () => screen.queryAllByTestId('route-row');

afterEach(() => cleanup());

describe('the Bank page’s Routes panel', () => {
  it('lists who routes what where, and follows team.rerouted live without asking again', async () => {
    const { team, emit } = setup({});
    await waitFor(() => expect(rows()).toHaveLength(1));
    const row = rows()[0]!;
    expect(within(row).getByTestId('route-member').textContent).toBe('alice@bank.example');
    expect(within(row).getByTestId('route-claim').textContent).toBe('sub=alice@*');
    expect(row.textContent).toContain('alice-laptop');
    expect(row.textContent).toContain('http://127.0.0.1:8080');
    expect(within(row).getByTestId('route-state').getAttribute('data-up')).toBe('true');
    const asked = team.routes.mock.calls.length;

    // The laptop goes away: the hub says so, the row turns down.
    emit('team.rerouted', [{ ...ALICE, up: false }]);
    await waitFor(() =>
      expect(within(rows()[0]!).getByTestId('route-state').getAttribute('data-up')).toBe('false'),
    );
    expect(within(rows()[0]!).getByTestId('route-state').textContent).toBe('down');
    emit('team.rerouted', []);
    await screen.findByTestId('routes-empty');
    expect(team.routes.mock.calls.length).toBe(asked);
  });

  it('names each route’s hub when several hubs share one database, and only then', async () => {
    const { emit } = setup({});
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(screen.queryByTestId('route-hub')).toBeNull();
    emit('team.rerouted', [
      { ...ALICE, hub: 'hub-a (pid 10)' },
      { ...ALICE, id: 'r1-b', glob: 'bob@*', hub: 'hub-b (pid 20)' },
    ]);
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(screen.getAllByTestId('route-hub').map((c) => c.textContent)).toEqual([
      'hub-a (pid 10)',
      'hub-b (pid 20)',
    ]);
  });

  it('shows no panel outside a team hub', async () => {
    const { team } = setup({ hub: null });
    await waitFor(() => expect(team.session).toHaveBeenCalled());
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId('bank-routes')).toBeNull();
    expect(team.routes).not.toHaveBeenCalled();
  });

  it('offers Add route only on the attach --forward-to page; a bad glob is named by the contract’s rule', async () => {
    const { team } = setup({ forwardTo: 'http://127.0.0.1:9090' });
    await screen.findByTestId('route-add');
    expect(screen.getByTestId('route-add').textContent).toContain('http://127.0.0.1:9090');
    fireEvent.change(screen.getByTestId('route-glob'), { target: { value: 'DE[0-9]*' } });
    expect(screen.getByTestId('route-glob-error').textContent).toBe(
      'only * and ? are wildcards: "[" is not allowed',
    );
    expect((screen.getByTestId('route-add-submit') as HTMLButtonElement).disabled).toBe(true);

    fireEvent.change(screen.getByTestId('route-field'), { target: { value: 'obj' } });
    fireEvent.change(screen.getByTestId('route-glob'), { target: { value: 'DE89*' } });
    expect(screen.queryByTestId('route-glob-error')).toBeNull();
    fireEvent.click(screen.getByTestId('route-add-submit'));
    await waitFor(() => expect(team.addRoute).toHaveBeenCalledWith({ field: 'obj', glob: 'DE89*' }));
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect((screen.getByTestId('route-glob') as HTMLInputElement).value).toBe('');

    // The hub's refusal lands under the glob.
    fireEvent.change(screen.getByTestId('route-glob'), { target: { value: 'taken' } });
    fireEvent.click(screen.getByTestId('route-add-submit'));
    await waitFor(() =>
      expect(screen.getByTestId('route-glob-error').textContent).toBe('bob holds 50 routes already'),
    );
  });

  it('has no Add form on a hub’s own page (no laptop), and Remove removes a row', async () => {
    const { team } = setup({});
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(screen.queryByTestId('route-add')).toBeNull();
    fireEvent.click(screen.getByTestId('route-remove'));
    await waitFor(() => expect(team.removeRoute).toHaveBeenCalledWith({ id: 'r1' }));
    await screen.findByTestId('routes-empty');
  });

  it('hides Add and Remove from a viewer, who still sees the routes', async () => {
    setup({ role: 'viewer', forwardTo: 'http://127.0.0.1:9090' });
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(screen.queryByTestId('route-remove')).toBeNull();
    expect(screen.queryByTestId('route-add')).toBeNull();
  });
});
