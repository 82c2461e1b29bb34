import { z } from 'zod';
import { RouteInfo, RouteRequest, TeamAttachInput, TeamConnection, TeamSession } from '../schemas/team';
import { method, NoInput } from './method';

/** `team.*` methods (issue 30). */
export const teamMethods = {
  'team.session': method({
    summary: 'Who this page speaks for: the team hub, the member and their role (admin outside a hub).',
    input: NoInput,
    output: TeamSession,
  }),
  'team.routes': method({
    summary:
      'The team hub’s routes: who routes which obj/sub glob to which attached laptop, since when, up or down (none outside a hub).',
    input: NoInput,
    output: z.array(RouteInfo),
  }),
  'team.addRoute': method({
    summary:
      'Adds a route to this attached laptop (served by `attach --forward-to`; a hub’s own page has no laptop to route to).',
    input: RouteRequest,
    output: RouteInfo,
  }),
  'team.removeRoute': method({
    summary: 'Removes a route by its id, whoever registered it (the hub tells that laptop).',
    input: z.object({ id: z.string().min(1).max(100) }).strict(),
    output: z.object({ removed: z.string() }),
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
  /**
   * The hub's routes, whole, each time one is added, removed, goes up or goes down (issue 30
   * item 3: "Routes are visible to the team"); pages replace their `team.routes` with it.
   */
  'team.rerouted': z.array(RouteInfo),
} as const;
