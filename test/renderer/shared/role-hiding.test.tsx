// @vitest-environment jsdom
/**
 * Issue 30 item 1: on a team hub's page every action the member's role may not take is hidden,
 * decided by the contract's role table (team-roles.ts) through one component (shared/allowed.tsx).
 * One page of each kind, each role: a viewer sees no mutating action; an operator sees the
 * sandbox's actions but not the keys' or the environments'; an admin sees all. Outside a hub
 * (no team.session answer) every action stays.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { TeamRole } from '../../../electron/contract/schemas/team';
import { EnvironmentsPage } from '../../../renderer/features/environments/environments-page';
import { KeysPage } from '../../../renderer/features/keys/keys-page';
import { resetKeysStore } from '../../../renderer/features/keys/keys-store';
import { SandboxPage } from '../../../renderer/features/sandbox/sandbox-page';
import { resetSandboxStore } from '../../../renderer/features/sandbox/sandbox-store';
import { renderWithClient } from '../support/render';
import { asMember, present, ready } from '../support/as-member';
import { fakeConsole, keyInfo } from '../support/fake-console';
import { counterparty, fakeSandboxApi, GUID, status } from '../features/sandbox/fake-sandbox';

beforeEach(() => {
  resetKeysStore();
  resetSandboxStore();
});
afterEach(() => cleanup());

describe('Keys page by role', () => {
  const render = async (role: TeamRole | null) => {
    const fake = fakeConsole({ keys: [keyInfo('k1', { status: 'active' })] });
    renderWithClient(<KeysPage />, role ? asMember(fake.api, role) : fake.api);
    await ready('keys-page');
  };

  it.each(['viewer', 'operator'] as const)(
    'a %s sees the keys and can export, but no key action',
    async (role) => {
      await render(role);
      await waitFor(() => expect(present('keys-generate')).toBe(false));
      for (const id of ['keys-import', 'keys-external', 'key-delete', 'key-status'])
        expect(present(id), id).toBe(false);
      expect(screen.getByTestId('key-status-text').textContent).toBe('active');
      expect(present('key-export')).toBe(true);
    },
  );

  it('an admin, and the console outside a hub, see every key action', async () => {
    for (const role of ['admin', null] as const) {
      await render(role);
      for (const id of ['keys-generate', 'keys-import', 'key-delete', 'key-status', 'key-export'])
        expect(present(id), `${role}: ${id}`).toBe(true);
      cleanup();
    }
  });
});

describe('Environments page by role', () => {
  const render = async (role: TeamRole) => {
    renderWithClient(<EnvironmentsPage />, asMember(fakeConsole().api, role));
    await ready('environments-page');
    await screen.findByTestId('env-table');
  };

  it.each(['viewer', 'operator'] as const)('a %s sees the environments, not add or edit', async (role) => {
    await render(role);
    await waitFor(() => expect(present('env-add')).toBe(false));
    expect(present('env-edit')).toBe(false);
  });

  it('an admin adds and edits', async () => {
    await render('admin');
    expect(present('env-add')).toBe(true);
    expect(present('env-edit')).toBe(true);
  });
});

describe('Sandbox page by role', () => {
  const render = async (role: TeamRole) => {
    const fake = fakeSandboxApi(status({ counterparties: [counterparty()] }));
    renderWithClient(<SandboxPage />, asMember(fake.api, role));
    await ready('sandbox-page');
    const item = screen.getByTestId(`counterparty-${GUID}`);
    fireEvent.click(within(item).getByTestId('counterparty-toggle'));
    return item;
  };

  it('a viewer sees the counterparty but no sandbox action', async () => {
    const item = await render('viewer');
    await waitFor(() => expect(present('onboard-open')).toBe(false));
    expect(present('rotate-key')).toBe(false);
    expect(within(item).queryByTestId('run-sign-in')).toBeNull();
    expect(within(item).queryByTestId('send-notification')).toBeNull();
    expect(present('delivery-settings')).toBe(true);
    expect(present('delivery-settings-save')).toBe(false);
  });

  it.each(['operator', 'admin'] as const)(
    'a %s onboards, rotates, signs in, notifies and sets the ladder',
    async (role) => {
      const item = await render(role);
      expect(present('onboard-open')).toBe(true);
      expect(present('rotate-key')).toBe(true);
      expect(within(item).getByTestId('run-sign-in')).toBeTruthy();
      expect(within(item).getByTestId('send-notification')).toBeTruthy();
      expect(present('delivery-settings-save')).toBe(true);
    },
  );
});
