/**
 * Routes across two hubs on one PostgreSQL (issue 30; docs/team-hub.md "Routes"): a laptop is
 * attached to hub A only, yet a callback its route claims that the load balancer sends to hub B
 * reaches it (B hands it to A through the database), judged at B within the budget; what the
 * route does not claim B answers itself; B's team.routes lists A's route. Hub A killed with
 * SIGKILL: B notices (A's session gone from the database), drops A's routes and answers itself.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../electron/contract/schemas/team';
import { makeCerts, type TestCerts } from '../core/tunnel/certs';
import { postgresForTests } from '../support/postgres-tests';
import { startRealService } from '../support/real-service';
import {
  attachLaptop,
  callback,
  hubApi,
  hubCallbackEvent,
  routedHubArgs,
  startBackend,
} from './support/routes';
import { cliTestFile } from './support/spawn-cli';
import { addMember } from './support/team';
import { until } from './support/until';

const cli = cliTestFile('dets-xhub-');
const cluster = postgresForTests();
let certs: TestCerts;
let ca: string;
beforeAll(async () => {
  certs = await makeCerts(path.join(cli.tmp, 'certs'));
  ca = await readFile(certs.cert, 'utf8');
});

describe('routes across two hubs on one PostgreSQL', () => {
  it('a callback at hub B reaches the laptop attached to hub A; A killed, B answers itself', async () => {
    const url = await cluster().database('xhub');
    const service = await startRealService();
    const where = ['--store', url, '--data-dir', cli.dataDir('cli')];
    const alice = await addMember(where, 'alice@bank.example', 'operator');
    const hub = async (name: string) => {
      await mkdir(path.dirname(cli.dataDir(name)), { recursive: true });
      const args = await routedHubArgs(cli.dataDir(name), certs, service);
      const h = cli.spawn([...args, '--store', url]);
      const ready = await h.ready;
      return { h, ui: String(ready.ui), bank: String(ready.bank) };
    };
    const [a, b] = await Promise.all([hub('a'), hub('b')]);
    const backend = await startBackend('A');
    const hubAUrl = new URL('/', a.ui).href;
    const lap = attachLaptop(cli.spawn, certs.cert, hubAUrl, alice, [
      '--forward-to',
      backend.url,
      '--route',
      'sub=alice*@bank.example',
    ]);
    await lap.ready;

    // B lists A's route, named as A's (hub differs from B's own routes' hub).
    const listed = await until("A's route on B", async () => {
      const routes = (await hubApi(ca, b.ui, 'team.routes')) as RouteInfo[];
      return routes.find((r) => r.glob === 'alice*@bank.example');
    });
    expect(listed).toMatchObject({
      member: 'alice@bank.example',
      field: 'sub',
      up: true,
      forward_to: backend.url,
    });
    const onA = ((await hubApi(ca, a.ui, 'team.routes')) as RouteInfo[])[0];
    expect(listed.hub).toBe(onA?.hub);
    expect(listed.id).toBe(onA?.id);

    // Claimed at B: the laptop's backend answers, judged at B, within the budget.
    const routed = await callback(ca, b.bank, service, 'DE01ALICE', 'alice@bank.example');
    expect([routed.status, JSON.parse(routed.body).external_id]).toEqual([200, 'ext-A']);
    expect(backend.seen.map((s) => s.sub)).toEqual(['alice@bank.example']);
    const judged = await hubCallbackEvent(ca, b.ui, 'alice@bank.example');
    expect(judged.forward?.url).toBe(`${backend.url}/user_auth`);
    expect(judged.failed_check).toBeNull();
    expect(judged.forward?.verdicts.find((c) => c.id === 'budget')?.status).toBe('passed');
    // The 1 s budget counted at B (its own event's duration, not this loaded client's clock).
    expect(judged.duration_ms).toBeLessThan(1000);

    // Not claimed: B's own customer.
    const own = await callback(ca, b.bank, service, 'DE01ALICE', 'carol@bank.example');
    expect([own.status, JSON.parse(own.body).external_id]).toEqual([200, 'hub-alice']);
    expect(backend.seen).toHaveLength(1);

    // Hub A killed: B answers itself, in time, and drops A's routes from its list.
    process.kill(a.h.child.pid!, 'SIGKILL');
    await a.h.exit;
    const during = await callback(ca, b.bank, service, 'DE01ALICE', 'alice2@bank.example');
    expect([during.status, JSON.parse(during.body).external_id]).toEqual([200, 'hub-alice']);
    expect((await hubCallbackEvent(ca, b.ui, 'alice2@bank.example')).duration_ms).toBeLessThan(1000);
    await until(
      "A's routes dropped on B",
      async () => (((await hubApi(ca, b.ui, 'team.routes')) as RouteInfo[]).length === 0 ? true : undefined),
      { tries: 120, everyMs: 250 },
    );
    const after = await callback(ca, b.bank, service, 'DE01ALICE', 'alice3@bank.example');
    expect([after.status, JSON.parse(after.body).external_id]).toEqual([200, 'hub-alice']);
    expect(backend.seen.map((s) => s.sub)).toEqual(['alice@bank.example']);
    // What B recorded of the miss, if A was still listed then: one event at most (one a second).
    const routeEvents = (await hubApi(ca, b.ui, 'events.query', { kind: 'route' })) as { total: number };
    expect(routeEvents.total).toBeLessThanOrEqual(1);

    expect((await lap.stop()).code).toBe(0);
    expect((await b.h.stop()).code).toBe(0);
  }, 120_000);
});
