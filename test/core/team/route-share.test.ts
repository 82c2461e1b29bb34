/**
 * Routes across hubs (issue 30; core/team route-share-pg.ts, route-share-payload.ts): the relay
 * channel's payloads (a request too large to cross refused with the reason, a payload for another
 * hub skipped unparsed, broken ones dropped), and two RelayHubs joined through a real PostgreSQL
 * 15: B claims by A's route, hands the request to A, A's laptop (a real TCP connection speaking
 * the relay's frames) answers, B gets the answer; too large: B records `route.down` saying so;
 * hostile NOTIFYs and rows change nothing; B's pages hear A's route changes; a route removed on
 * B's page is removed by A.
 */
import { describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import type { RouteInfo } from '../../../electron/contract/schemas/team';
import type { RelayRequest } from '../../../electron/core/bank';
import type { NewEvent } from '../../../electron/core/store';
import { PG_RELAY_CHANNEL } from '../../../electron/core/store';
import { frameLine, frameReader, HubFrame } from '../../../electron/core/team/relay-frames';
import { RelayHub } from '../../../electron/core/team/relay-hub';
import {
  addressedTo,
  askPayload,
  NOTIFY_MAX_BYTES,
  outcomeOf,
  readRelayPayload,
  refusalPayload,
  removalPayload,
  replyPayload,
} from '../../../electron/core/team/route-share-payload';
import { PgRouteShare } from '../../../electron/core/team/route-share-pg';
import { postgresForTests } from '../../support/postgres-tests';
import { connected } from '../../support/relay-laptop';

const request = (sub: string, token = 'x.y.z'): RelayRequest => ({
  kind: 'callback',
  method: 'GET',
  path: '/user_auth',
  headers: { 'X-Session-ID': token },
  body: null,
  claims: { obj: 'DE01', sub },
  deadline: performance.now() + 750,
});

describe('the relay channel payloads', () => {
  it('refuses a request too large for a NOTIFY, with the reason', () => {
    const made = askPayload({ to: 'A', from: 'B', id: 1, route: 'r1' }, request('a', 'x'.repeat(8000)), 0);
    expect(made).toEqual({
      refused: expect.stringMatching(
        /^the request is \d+ bytes as a PostgreSQL NOTIFY payload, over its 7999$/,
      ),
    });
    const small = askPayload({ to: 'A', from: 'B', id: 1, route: 'r1' }, request('a'), performance.now());
    expect('payload' in small && Buffer.byteLength(small.payload) <= NOTIFY_MAX_BYTES).toBe(true);
  });

  it('reads an ask and a reply addressed to this hub; skips one for another hub unparsed', () => {
    const made = askPayload(
      { to: 'A', from: 'B', id: 7, route: 'r1-ab' },
      request('alice'),
      performance.now(),
    );
    if (!('payload' in made)) throw new Error(made.refused);
    const read = readRelayPayload(made.payload, 'A');
    expect(read).toMatchObject({
      kind: 'ask',
      ask: { from: 'B', id: 7, route: 'r1-ab', request: { claims: { sub: 'alice' } } },
    });
    expect(read?.kind === 'ask' && read.ask.deadline_ms).toBeGreaterThan(700);

    expect(readRelayPayload(removalPayload({ to: 'A', from: 'B', remove: 'r2-ab' }), 'A')).toEqual({
      kind: 'remove',
      removal: { to: 'A', from: 'B', remove: 'r2-ab' },
    });

    const parse = vi.spyOn(JSON, 'parse');
    expect(readRelayPayload(made.payload, 'C')).toBeNull();
    expect(readRelayPayload(`${addressedTo('A')}"not json at all`, 'B')).toBeNull();
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();

    const answer = {
      answered: true as const,
      url: 'http://127.0.0.1:9/user_auth',
      result: {
        ok: true as const,
        status: 200,
        headers: { a: 'b' },
        body: Buffer.from('{"external_id":"e"}'),
        truncated: false,
        durationMs: 3,
        connectMs: null,
      },
    };
    const reply = readRelayPayload(replyPayload('B', 7, answer), 'B');
    expect(reply?.kind).toBe('reply');
    if (reply?.kind === 'reply') expect(outcomeOf(reply.reply)).toEqual(answer);
    // An answer too large to cross comes back as a refusal saying so.
    const big = { ...answer, result: { ...answer.result, body: Buffer.alloc(9000, 0x61) } };
    const refused = readRelayPayload(replyPayload('B', 8, big), 'B');
    expect(refused?.kind === 'reply' && refused.reply.outcome).toEqual({
      answered: false,
      why: expect.stringMatching(
        /^the laptop's answer is \d+ bytes as a PostgreSQL NOTIFY payload, over its 7999$/,
      ),
    });
  });

  it('drops broken and hostile payloads addressed to this hub', () => {
    const to = addressedTo('A');
    const ask = {
      from: 'B',
      id: 1,
      deadline_ms: 500,
      route: 'r1',
      request: { kind: 'callback', method: 'GET', path: '/user_auth', headers: {}, body: null, claims: null },
    };
    const json = (v: object) => `${to}${JSON.stringify(v).slice(1)}`;
    expect(readRelayPayload(json(ask), 'A')?.kind).toBe('ask');
    for (const bad of [
      `${to}`,
      `${to}"id":1`,
      json({ ...ask, id: -1 }),
      json({ ...ask, id: 1.5 }),
      json({ ...ask, deadline_ms: 1e9 }),
      json({ ...ask, extra: true }),
      json({ ...ask, request: { ...ask.request, method: 'DELETE' } }),
      json({ ...ask, request: { ...ask.request, path: 'x'.repeat(3000) } }),
      json({ ...ask, request: { ...ask.request, headers: { h: 5 } } }),
      json({ id: 1, outcome: { answered: true, status: 200 } }),
      json({ id: 1, outcome: { answered: false } }),
      `${to}${'x'.repeat(NOTIFY_MAX_BYTES)}`,
      `${to}"__proto__":{"polluted":1},"id":1,"outcome":{"answered":false,"why":null}}`,
    ])
      expect(readRelayPayload(bad, 'A'), bad.slice(0, 80)).toBeNull();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(readRelayPayload(refusalPayload('A', 3, 'w'.repeat(900)), 'A')).toMatchObject({
      kind: 'reply',
      reply: { outcome: { answered: false, why: 'w'.repeat(500) } },
    });
  });
});

describe('two RelayHubs joined through PostgreSQL', () => {
  const cluster = postgresForTests();

  it('B relays through A to A’s laptop; too large is route.down; hostile NOTIFYs change nothing', async () => {
    const url = await cluster().database('share');
    const log = () => undefined;
    const recorded: NewEvent[] = [];
    const heardOnB: RouteInfo[][] = [];
    const a = new RelayHub('-a');
    const b = new RelayHub('-b');
    b.configure({ record: (e) => recorded.push(e), changed: (r) => heardOnB.push(r) });
    const shareA = await PgRouteShare.open(url, a, log);
    const shareB = await PgRouteShare.open(url, b, log);
    const laptop = await connected(a);
    const relayed: Extract<HubFrame, { t: 'relay' }>[] = [];
    const removedOnLaptop: string[] = [];
    laptop.on(
      'data',
      frameReader(
        HubFrame,
        (f) => {
          if (f.t === 'removed') removedOnLaptop.push(f.id);
          if (f.t !== 'relay') return;
          relayed.push(f);
          const body = Buffer.from(JSON.stringify({ external_id: 'ext-laptop' })).toString('base64');
          laptop.write(
            frameLine({
              t: 'answer',
              id: f.id,
              status: 200,
              headers: {},
              body_b64: body,
              truncated: false,
              duration_ms: 1,
            }),
          );
        },
        () => undefined,
      ),
    );
    laptop.write(
      frameLine({
        t: 'hello',
        name: 'lap',
        forward_to: 'http://127.0.0.1:9',
        routes: [{ field: 'sub', glob: 'alice*' }],
      }),
    );

    // B's pages hear A's route (team.rerouted), named with A's hub.
    await expect
      .poll(() => heardOnB.at(-1)?.map((r) => [r.id, r.glob, r.hub]), { timeout: 10_000 })
      .toEqual([['r1-a', 'alice*', shareA.name]]);
    expect(b.list()).toEqual(heardOnB.at(-1));

    const claimed = b.relay(request('alice@bank.example'));
    expect(claimed).not.toBeNull();
    const outcome = await claimed!;
    expect(outcome.answered && JSON.parse(outcome.result.body.toString())).toEqual({
      external_id: 'ext-laptop',
    });
    expect(relayed.map((f) => [f.path, f.headers['X-Session-ID']])).toEqual([['/user_auth', 'x.y.z']]);
    expect(relayed[0]!.budget_ms).toBeLessThanOrEqual(750);
    expect(b.relay(request('carol@bank.example'))).toBeNull();

    // Too large to cross: B answers itself and says why.
    expect(await b.relay(request('alice2', 'x'.repeat(9000)))).toEqual({ answered: false });
    expect(recorded.map((e) => [e.path, e.sub])).toEqual([['route.down', 'alice2']]);
    expect(recorded[0]!.warning).toMatch(
      /over its 7999: too large to hand to hub .*; the hub answered \/user_auth itself/,
    );
    expect(relayed).toHaveLength(1);

    // Hostile payloads on the relay channel, addressed to A and to B: dropped, both keep working.
    const raw = new pg.Client({ connectionString: url });
    await raw.connect();
    for (const to of [shareA, shareB].map((s) => s.id))
      for (const p of [
        `{"to":"${to}",`,
        `{"to":"${to}","id":1,"outcome":{"answered":true}}`,
        'null',
        '[]',
        '{"to":1}',
      ])
        await raw.query('SELECT pg_notify($1, $2)', [PG_RELAY_CHANNEL, p]);
    // Rows no hub wrote (not JSON, a glob the rule refuses) are not taken; a well-formed row
    // written with them is, so the read is seen to have happened.
    const route = { ...b.list()[0]!, hub: undefined, id: 'evil', glob: 'alice[' };
    const rows = [
      ['evil1', 'not json'],
      ['evil2', JSON.stringify([route])],
      ['good', JSON.stringify([{ ...route, id: 'good', glob: 'zed*' }])],
    ];
    for (const [hub, routes] of rows)
      await raw.query(
        `INSERT INTO team_routes (hub, name, pid, routes, beat_ms) VALUES ($1, 'evil', NULL, $2, (extract(epoch from now()) * 1000)::bigint)`,
        [hub, routes],
      );
    await raw.query("SELECT pg_notify('dets_routes', 'evil')");
    await expect
      .poll(
        () =>
          b
            .list()
            .map((r) => r.id)
            .sort(),
        { timeout: 10_000 },
      )
      .toEqual(['good', 'r1-a']);
    // A hub whose beat is over 30 s old (its host cut off): ignored, its row removed by B.
    await raw.query(
      `INSERT INTO team_routes (hub, name, pid, routes, beat_ms) VALUES ('stale', 'stale', NULL, $1, (extract(epoch from now()) * 1000)::bigint - 31000)`,
      [JSON.stringify([{ ...route, id: 'old', glob: 'alice*' }])],
    );
    await raw.query("SELECT pg_notify('dets_routes', 'stale')");
    const staleRows = async () =>
      (await raw.query("SELECT hub FROM team_routes WHERE hub = 'stale'")).rowCount;
    await expect.poll(staleRows, { timeout: 10_000 }).toBe(0);
    expect(b.list().map((r) => r.id)).not.toContain('old');
    await raw.query("DELETE FROM team_routes WHERE name = 'evil'");
    await raw.query("SELECT pg_notify('dets_routes', 'evil')");
    await raw.end();
    await expect.poll(() => b.list().map((r) => r.id), { timeout: 10_000 }).toEqual(['r1-a']);
    const again = await b.relay(request('alice3'))!;
    expect(again.answered).toBe(true);
    expect(relayed).toHaveLength(2);

    // A notification: only a catch-all route claims it, its body crossing with it.
    expect(b.relay({ ...request('x'), kind: 'notification', claims: null })).toBeNull();
    laptop.write(frameLine({ t: 'add', ref: 1, route: { field: 'obj', glob: '*' } }));
    await expect.poll(() => b.list().length, { timeout: 10_000 }).toBe(2);
    const note = JSON.stringify({ transaction_id: '00000000-0000-4000-8000-000000000001' });
    const notified = await b.relay({
      kind: 'notification',
      method: 'POST',
      path: '/api/svc/notify/pay-in',
      headers: { 'Content-Type': 'application/json' },
      body: note,
      claims: null,
      deadline: performance.now() + 750,
    })!;
    expect(notified.answered).toBe(true);
    expect(relayed.at(-1)).toMatchObject({ method: 'POST', path: '/api/svc/notify/pay-in', body: note });

    // Removed on B's page: A removes it and tells its laptop; B's pages hear the list without it.
    expect(b.remove('r1-a')).toEqual({ removed: 'r1-a' });
    expect(b.list().map((r) => r.id)).toEqual(['r2-a']);
    await expect.poll(() => removedOnLaptop, { timeout: 10_000 }).toEqual(['r1-a']);
    expect(a.list().map((r) => r.glob)).toEqual(['*']);
    await expect.poll(() => heardOnB.at(-1)?.map((r) => r.glob), { timeout: 10_000 }).toEqual(['*']);

    // A leaves: B's pages hear the list without its route.
    await shareA.close();
    await expect.poll(() => heardOnB.at(-1), { timeout: 10_000 }).toEqual([]);
    expect(b.relay(request('alice4'))).toBeNull();
    laptop.destroy();
    a.close();
    await shareB.close();
  }, 60_000);
});
