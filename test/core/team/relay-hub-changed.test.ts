/**
 * Issue 30 item 3, "Routes are visible to the team", live: the hub's RelayHub tells its pages the
 * whole route list (`team.rerouted`) when a laptop's hello registers routes, when it adds one,
 * when one is removed and when its connection closes (routes down), over a real TCP connection on
 * 127.0.0.1 speaking the relay's frames.
 */
import { describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../../electron/contract/schemas/team';
import { frameLine } from '../../../electron/core/team/relay-frames';
import { RelayHub } from '../../../electron/core/team/relay-hub';
import { connected } from '../../support/relay-laptop';

function next(seen: RouteInfo[][], count: number): Promise<RouteInfo[]> {
  return expect
    .poll(() => seen.length, { timeout: 5000 })
    .toBeGreaterThanOrEqual(count)
    .then(() => seen[count - 1]!);
}

describe('RelayHub tells the pages its routes as they change', () => {
  it('on hello, add, remove and a lost connection, each time the whole list', async () => {
    const hub = new RelayHub();
    const seen: RouteInfo[][] = [];
    hub.configure({ changed: (routes) => seen.push(routes) });
    const laptop = await connected(hub);
    laptop.on('data', () => undefined);

    laptop.write(
      frameLine({
        t: 'hello',
        name: 'alice-laptop',
        forward_to: 'http://127.0.0.1:1',
        routes: [{ field: 'sub', glob: 'alice@*' }],
      }),
    );
    const first = await next(seen, 1);
    expect(first).toMatchObject([
      { member: 'alice', field: 'sub', glob: 'alice@*', attach: 'alice-laptop', up: true },
    ]);

    laptop.write(frameLine({ t: 'add', ref: 1, route: { field: 'obj', glob: 'DE89*' } }));
    expect((await next(seen, 2)).map((r) => r.glob)).toEqual(['alice@*', 'DE89*']);

    hub.remove(first[0]!.id);
    expect((await next(seen, 3)).map((r) => r.glob)).toEqual(['DE89*']);

    laptop.destroy();
    const down = await next(seen, 4);
    expect(down).toMatchObject([{ glob: 'DE89*', up: false }]);
    expect(hub.list()).toEqual(down);
    hub.close();
  });
});
