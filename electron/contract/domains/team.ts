import { TeamAttachInput, TeamConnection, TeamSession } from '../schemas/team';
import { method, NoInput } from './method';

/** `team.*` methods (issue 30). */
export const teamMethods = {
  'team.session': method({
    summary: 'Who this page speaks for: the team hub, the member and their role (admin outside a hub).',
    input: NoInput,
    output: TeamSession,
  }),
  'team.connection': method({
    summary: 'Whether this console is attached to a team hub, as whom, and whether its live events arrive.',
    input: NoInput,
    output: TeamConnection,
  }),
  'team.attach': method({
    summary:
      'Attach to a team hub with a member token: the pages become the hub’s; the token goes to the OS keychain.',
    input: TeamAttachInput,
    output: TeamConnection,
  }),
  'team.detach': method({
    summary: 'Detach from the team hub: the pages are this console’s again; the token leaves the keychain.',
    input: NoInput,
    output: TeamConnection,
  }),
} as const;

/** `team.*` events. */
export const teamEvents = {
  'team.changed': TeamConnection,
} as const;
