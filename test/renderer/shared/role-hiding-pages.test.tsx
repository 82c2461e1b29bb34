// @vitest-environment jsdom
/**
 * Issue 30 item 1 ("hides actions the role may not take"), the pages role-hiding.test.tsx does not
 * cover: each action is hidden unless the contract's role table (team-roles.ts) lets the member's
 * role call its method, through the one component (shared/allowed.tsx). Viewer, operator, admin,
 * and the console outside a hub (no session: every action shown).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { TeamRole } from '../../../electron/contract/schemas/team';
import { BankPage } from '../../../renderer/features/bank/bank-page';
import { CallbacksPage } from '../../../renderer/features/callbacks/callbacks-page';
import { resetCallbacksStore } from '../../../renderer/features/callbacks/callbacks-store';
import { ComposerPage } from '../../../renderer/features/composer/composer-page';
import { resetComposerStore } from '../../../renderer/features/composer/composer-store';
import { ConformancePage } from '../../../renderer/features/conformance/conformance-page';
import { useConformanceStore } from '../../../renderer/features/conformance/conformance-store';
import { NotificationsPage } from '../../../renderer/features/notifications/notifications-page';
import { resetNotificationsStore } from '../../../renderer/features/notifications/notifications-store';
import { renderWithClient } from '../support/render';
import { memberSession, present, ready, roleApi } from '../support/as-member';
import { fakeConsole, GUID, keyInfo, sandboxEnv } from '../support/fake-console';
import { fakeEventsConsole, summary } from '../support/fake-events';
import { idleConformanceApi } from '../support/idle-conformance';
import { useFakeViewport } from '../support/layout';
import { contractApi } from '../support/contract-api';
import { ServicePage } from '../../../renderer/features/service/service-page';
import { resetServiceStore } from '../../../renderer/features/service/service-store';
import { ScenariosPage } from '../../../renderer/features/scenarios/scenarios-page';
import { useScenarioFolder } from '../../../renderer/data/scenarios';
import { renderWith, stateWith } from '../features/walkthrough/fixtures';
import { resetWalkthroughUi } from '../../../renderer/features/walkthrough/walkthrough-store';

const ROLES = ['viewer', 'operator', 'admin', null] as const;
type Role = TeamRole | null;
/** Whether `role` sees an action needing `needs` (outside a hub, `null`, everything is shown). */
const sees = (role: Role, needs: TeamRole) => role === null || ROLES.indexOf(role) >= ROLES.indexOf(needs);

/** Every `[testId, role it needs]` is present exactly when `role` reaches that role. */
async function expectActions(role: Role, actions: ReadonlyArray<readonly [string, TeamRole]>) {
  // The session answers after the first render: wait for its outcome on the first action.
  const [first, firstNeeds] = actions[0]!;
  await waitFor(() => expect(present(first), `${role}: ${first}`).toBe(sees(role, firstNeeds)));
  for (const [id, needs] of actions) expect(present(id), `${role}: ${id}`).toBe(sees(role, needs));
}

const initialConformance = useConformanceStore.getState();
useFakeViewport();
beforeEach(() => {
  resetCallbacksStore();
  resetComposerStore();
  resetNotificationsStore();
  useConformanceStore.setState(initialConformance, true);
  resetServiceStore();
  resetWalkthroughUi();
  useScenarioFolder.setState({ folder: '' });
  Element.prototype.scrollIntoView = vi.fn();
  window.location.hash = '';
});
afterEach(() => cleanup());

describe.each(ROLES)('as %s', (role) => {
  it('Bank: customers and behaviours need operator, the notification prefix admin', async () => {
    const customer = {
      obj: 'DE89370400440532013000',
      external_id: 'cust-1',
      phone: '+4915112345678',
      key: 'k',
    };
    renderWithClient(<BankPage />, roleApi(fakeEventsConsole({ customers: [customer] }).api, role));
    await ready('bank-page');
    await screen.findByText('cust-1');
    await expectActions(role, [
      ['customer-add', 'operator'],
      ['customers-import', 'operator'],
      ['customers-export', 'operator'],
      ['customer-edit', 'operator'],
      ['customer-remove', 'operator'],
      ['behaviours-apply', 'operator'],
      ['bank-notify-prefix-dcm', 'admin'],
    ]);
  });

  it('Callbacks: re-check, replay and a fresh-token curl need operator', async () => {
    const events = [summary({ id: 'c2', path: '/user_auth', failed_check: 'exp', status: 401 })];
    const fake = fakeEventsConsole({ events, environmentOf: { c2: 'sandbox' } });
    renderWithClient(<CallbacksPage />, roleApi(fake.api, role));
    await ready('callbacks-page');
    fireEvent.click(screen.getAllByTestId('callback-row')[0]!);
    await screen.findByTestId('callback-detail');
    await expectActions(role, [
      ['callback-replay', 'operator'],
      ['callback-recheck', 'operator'],
      ['callback-fresh-curl-make', 'operator'],
    ]);
  });

  it('Notifications: changing the retention needs admin; reading it does not', async () => {
    const events = [summary({ id: 'n1', kind: 'notification', path: '/api/svc/notify/pay-in' })];
    renderWithClient(<NotificationsPage />, roleApi(fakeEventsConsole({ events }).api, role));
    await ready('notifications-page');
    fireEvent.click(screen.getByTestId('notifications-retention-toggle'));
    await screen.findByTestId('retention-current');
    await expectActions(role, [['retention-mode-last', 'admin']]);
  });

  it('Composer: signing needs operator', async () => {
    const env = sandboxEnv({ counterparty_guid: GUID, active_kid: 'k-env' });
    const fake = fakeConsole({ keys: [keyInfo('k-env')], environments: [env] });
    renderWithClient(<ComposerPage />, roleApi(fake.api, role));
    await ready('composer-page');
    await expectActions(role, [['composer-sign', 'operator']]);
  });

  it('Conformance: a run, the self-check and the notification run need operator', async () => {
    renderWithClient(<ConformancePage />, roleApi(idleConformanceApi(), role));
    await screen.findByTestId('conformance-form');
    await expectActions(role, [
      ['conformance-run', 'operator'],
      ['conformance-self-check', 'operator'],
      ['conformance-notify-run', 'operator'],
    ]);
  });

  it('Service: authenticate and the JWK list need operator; register, update and rotate admin', async () => {
    const env = sandboxEnv({ counterparty_guid: GUID, active_kid: 'old-key' });
    const fake = fakeConsole({ keys: [keyInfo('old-key')], environments: [env] });
    renderWithClient(<ServicePage />, roleApi(fake.api, role));
    await ready('service-page');
    await screen.findByTestId('env-summary');
    await expectActions(role, [
      ['service-authenticate', 'operator'],
      ['service-fetch-jwks', 'operator'],
      ['service-list-jwks', 'operator'],
      ['service-register-jwk', 'admin'],
      ['service-update-jwk', 'admin'],
      ['rotate-start', 'admin'],
    ]);
  });

  it('Scenarios: listing the folder (and so running from it) needs admin; no one else is sent a 403', async () => {
    useScenarioFolder.setState({ folder: '/repo/scenarios' });
    const scenario = {
      list: vi.fn(async () => ({
        folder: '/repo/scenarios',
        files: [{ file: 'ladder.json', name: 'ladder', description: null, steps: 1, error: null }],
      })),
      run: vi.fn(() => new Promise(() => undefined)),
    };
    const team = role ? { team: { session: vi.fn(async () => memberSession(role)) } } : {};
    renderWithClient(<ScenariosPage />, contractApi({ scenario, ...team }).api);
    // Shown only once the session is known: the admin's listing, or everyone else's note.
    const shown = sees(role, 'admin') ? 'scenario-run-ladder.json' : 'scenarios-admin-only';
    await waitFor(() => expect(present(shown), shown).toBe(true));
    await expectActions(role, [
      ['scenario-run-ladder.json', 'admin'],
      ['scenarios-open', 'admin'],
    ]);
    expect(present('scenarios-admin-only')).toBe(!sees(role, 'admin'));
    expect(present('scenarios-error')).toBe(false);
    if (!sees(role, 'admin')) expect(scenario.list).not.toHaveBeenCalled();
  });

  it('Walkthrough: running a step and starting over need operator', async () => {
    renderWith(
      stateWith(['key']),
      [],
      role ? { team: { session: vi.fn(async () => memberSession(role)) } } : {},
    );
    await screen.findByTestId('walkthrough-steps');
    await expectActions(role, [
      ['step-action-register', 'operator'],
      ['walkthrough-reset', 'operator'],
    ]);
  });
});
