/**
 * Route globs and which route claims a request (issue 30 item 3): `*` and `?` only, exact and
 * case-sensitive; bad globs refused naming what is wrong; two routes claiming one request: fewer
 * wildcards, then the longer literal prefix, then the older route; notifications only to
 * catch-all routes; a down route still claims (the hub answers, never another's laptop).
 */
import { describe, expect, it } from 'vitest';
import { compareRoutes, globMatches, parseRouteSpec } from '../../../electron/core/team';
import {
  addRoute,
  claimingRoute,
  connectionLost,
  DOWN_KEPT_MS,
  listRoutes,
  MAX_ROUTES_PER_MEMBER,
  newRouteTable,
} from '../../../electron/core/team/route-table';

const owner = (member: string, connection = `c-${member}`) => ({
  member,
  attach: 'laptop',
  forward_to: 'http://127.0.0.1:3000',
  connection,
});

describe('route globs', () => {
  it('match whole values, case-sensitively, with * and ? only', () => {
    expect(globMatches('alice@*', 'alice@bank.example')).toBe(true);
    expect(globMatches('alice@*', 'Alice@bank.example')).toBe(false);
    expect(globMatches('DE??', 'DE89')).toBe(true);
    expect(globMatches('DE??', 'DE8')).toBe(false);
    expect(globMatches('*@bank.*', 'x@bank.example')).toBe(true);
    expect(globMatches('a*b*c', 'aXbYbZc')).toBe(true);
    expect(globMatches('a*b*c', 'aXbYbZ')).toBe(false);
    expect(globMatches('?', '€')).toBe(true);
    expect(globMatches('*', '')).toBe(true);
    // No backtracking blow-up: a hostile glob against a long value answers at once.
    expect(globMatches(`${'*a'.repeat(100)}b`, 'a'.repeat(5000))).toBe(false);
  });

  it('refuses bad specs naming what is wrong', () => {
    expect(parseRouteSpec('sub=alice@*')).toEqual({ field: 'sub', glob: 'alice@*' });
    expect(parseRouteSpec('obj=a=b')).toEqual({ field: 'obj', glob: 'a=b' });
    const refusals: Array<[string, RegExp]> = [
      ['iss=x', /expected obj=GLOB or sub=GLOB/],
      ['sub', /expected obj=GLOB or sub=GLOB/],
      ['sub=', /the glob is empty/],
      ['sub= a', /white space/],
      ['obj=DE[0-9]*', /"\[" is not allowed/],
      ['obj={a,b}', /"\{" is not allowed/],
      ['obj=a\\*', /"\\" is not allowed/],
      ['sub=a\u0000b', /control character/],
      [`sub=${'x'.repeat(301)}`, /longer than 300/],
    ];
    for (const [spec, why] of refusals) expect(() => parseRouteSpec(spec), spec).toThrow(why);
  });

  it('orders by fewer wildcards, then the longer literal prefix, then the older', () => {
    const r = (glob: string, order: number) => ({ glob, order });
    expect([r('alice@*', 1), r('alice@bank.example', 2)].sort(compareRoutes)[0]!.glob).toBe(
      'alice@bank.example',
    );
    expect([r('alice@*', 1), r('alice@bank.*', 2)].sort(compareRoutes)[0]!.glob).toBe('alice@bank.*');
    expect([r('a*', 1), r('a?c*', 2)].sort(compareRoutes)[0]!.glob).toBe('a*');
    expect([r('b*', 2), r('a*', 1)].sort(compareRoutes)[0]!.glob).toBe('a*');
  });
});

describe('the route table', () => {
  it('gives a request to the most specific route, then the oldest, by obj or sub', () => {
    const t = newRouteTable();
    const bySub = addRoute(t, owner('alice'), { field: 'sub', glob: 'alice*' });
    const byObj = addRoute(t, owner('bob'), { field: 'obj', glob: 'DE02*' });
    const exact = addRoute(t, owner('carol'), { field: 'obj', glob: 'DE02BOB' });
    expect(claimingRoute(t, { obj: 'DE01', sub: 'alice@x' })?.id).toBe(bySub.id);
    expect(claimingRoute(t, { obj: 'DE02ZED', sub: 'zed' })?.id).toBe(byObj.id);
    // Both claim; an exact glob beats one wildcard.
    expect(claimingRoute(t, { obj: 'DE02BOB', sub: 'alice@x' })?.id).toBe(exact.id);
    // Same specificity (one wildcard, prefix 4 each): the older wins.
    const first = addRoute(t, owner('dan'), { field: 'sub', glob: 'zed@*' });
    const second = addRoute(t, owner('erin'), { field: 'obj', glob: 'DE03*' });
    expect(claimingRoute(t, { obj: 'DE03X', sub: 'zed@y' })?.id).toBe(first.id);
    expect(claimingRoute(t, { obj: 'DE03X', sub: 'nobody' })?.id).toBe(second.id);
    expect(claimingRoute(t, { obj: 'FR01', sub: 'nobody' })).toBeNull();
    // Notifications have no obj or sub: only catch-all routes claim them.
    expect(claimingRoute(t, null)).toBeNull();
    const all = addRoute(t, owner('frank'), { field: 'sub', glob: '*' });
    expect(claimingRoute(t, null)?.id).toBe(all.id);
    expect(claimingRoute(t, { obj: 'FR01', sub: 'nobody' })?.id).toBe(all.id);
  });

  it('keeps a lost laptop’s routes down (still claiming), resumes them, and expires them', () => {
    const t = newRouteTable();
    const now = Date.parse('2026-11-27T10:00:00Z');
    const r = addRoute(t, owner('alice', 'c1'), { field: 'sub', glob: 'alice*' }, now);
    addRoute(t, owner('bob'), { field: 'sub', glob: '*' }, now);
    expect(connectionLost(t, 'c1', now + 1)).toBe(1);
    // Down, it still claims alice's callbacks: they are never handed to bob's catch-all.
    expect(claimingRoute(t, { obj: null, sub: 'alice@x' }, now + 2)).toMatchObject({ id: r.id, up: false });
    const back = addRoute(t, owner('alice', 'c2'), { field: 'sub', glob: 'alice*' }, now + 3);
    expect(back).toMatchObject({ id: r.id, up: true, connection: 'c2', since: r.since });
    connectionLost(t, 'c2', now + 4);
    expect(listRoutes(t, now + 4 + DOWN_KEPT_MS + 1).map((x) => x.glob)).toEqual(['*']);
  });

  it('bounds the routes a member holds', () => {
    const t = newRouteTable();
    for (let i = 0; i < MAX_ROUTES_PER_MEMBER; i++)
      addRoute(t, owner('alice'), { field: 'sub', glob: `a${i}*` });
    expect(() => addRoute(t, owner('alice'), { field: 'sub', glob: 'one-more*' })).toThrow(/holds 50 routes/);
  });
});
