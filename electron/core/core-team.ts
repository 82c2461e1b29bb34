/**
 * The team hub's route methods (issue 30 item 3): `team.routes` lists the hub's routes (none
 * outside a hub), `team.removeRoute` removes one. `team.addRoute` needs a laptop's relay
 * connection, so it is served by `attach --forward-to` (core/team AttachCore); called on a hub's
 * own page, or outside a hub, it says where to add one instead.
 */
import type { Handlers } from '../contract';
import { noLaptop } from './team';
import type { CoreOptions } from './core-types';

type RouteHandlers = Pick<Handlers, 'team.routes' | 'team.addRoute' | 'team.removeRoute'>;

/** The handlers over `options.relay`. */
export function teamRouteHandlers(options: Pick<CoreOptions, 'relay'>): RouteHandlers {
  const relay = options.relay;
  return {
    'team.routes': () => Promise.resolve(relay ? relay.list() : []),
    'team.addRoute': () => Promise.reject(noLaptop()),
    'team.removeRoute': ({ id }) =>
      relay ? Promise.resolve().then(() => relay.remove(id)) : Promise.reject(noLaptop()),
  };
}
