import { expect } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import type { ConsoleApi } from '../../../electron/contract';
import type { TeamRole } from '../../../electron/contract/schemas/team';

/** team.session's answer on a hub for a member of `role`. */
export const memberSession = (role: TeamRole) => ({
  hub: 'hub.bank.example',
  member: `${role}@bank.example`,
  role,
});

/** The same fake, as seen by a member of `role` on a hub (team.session answers for them). */
export function asMember(api: ConsoleApi, role: TeamRole): ConsoleApi {
  const session = async () => memberSession(role);
  return { ...api, team: { ...api.team, session } } as ConsoleApi;
}

/** `api` as `role` sees it, or the console outside a hub (`null`: every action shown). */
export const roleApi = (api: ConsoleApi, role: TeamRole | null): ConsoleApi =>
  role ? asMember(api, role) : api;

/** Waits until the page is ready and the session is known (the badge-free pages show it by hiding). */
export async function ready(testId: string) {
  await waitFor(() => expect(screen.getByTestId(testId).getAttribute('data-state')).toBe('ready'));
}

/** Whether at least one element with `testId` is on the page. */
export const present = (testId: string) => screen.queryAllByTestId(testId).length > 0;
