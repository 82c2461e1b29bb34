import { TeamSession } from '../schemas/team';
import { method, NoInput } from './method';

/** `team.*` methods (issue 30). */
export const teamMethods = {
  'team.session': method({
    summary: 'Who this page speaks for: the team hub, the member and their role (admin outside a hub).',
    input: NoInput,
    output: TeamSession,
  }),
} as const;
