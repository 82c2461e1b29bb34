/**
 * The rule that rebuilds an old progress record's `own` (legacy-own.ts, issue 24 item 7), on
 * hand-made traces and exchanges: it claims the walkthrough's last run of each step, marked by
 * the step's attempt, and nothing a stranger sent (earlier, later, for another customer, out of
 * order), which the old rules would have counted.
 */
import { describe, expect, it } from 'vitest';
import type { Trace } from '../../../electron/contract/schemas/sandbox';
import type { Exchange } from '../../../electron/contract/schemas/service';
import {
  ACTION_TAIL_MS,
  ownOfOldProfile,
  type OldProfile,
} from '../../../electron/core/walkthrough/legacy-own';
import { Progress } from '../../../electron/core/walkthrough/progress';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const OBJ = 'DE89370400440532013000';
const SUB = 'walkthrough@bank.example';
const GUID = '0acf0253-8272-4764-81d1-a8a51ddbd2c8';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
/** A service token as the sandbox sends it (only decoded here, never verified). */
const sessionToken = (obj: string, sub: string, n: number) =>
  `${b64({ alg: 'RS256', kid: 'sb' })}.${b64({ flow: 'sign-in', obj, sub, iat: n, exp: n + 300 })}.c2ln`;

function trace(
  id: string,
  kind: Trace['kind'],
  startMs: number,
  request: Trace['steps'][number]['request'],
): Trace {
  return {
    id,
    at: at(startMs),
    kind,
    counterparty_guid: GUID,
    ok: true,
    failed: null,
    duration_ms: 40,
    steps: [
      {
        id: 'reachable',
        title: 'reachable',
        status: 'passed',
        detail: '',
        at: at(startMs),
        duration_ms: 30,
        request,
        response: null,
      },
    ],
  };
}

const signIn = (id: string, startMs: number, token: string | null) =>
  trace(
    id,
    'sign-in',
    startMs,
    token === null
      ? null
      : {
          method: 'GET',
          url: 'http://127.0.0.1:1/user_auth',
          headers: { 'X-Session-ID': token },
          body: null,
        },
  );

const notify = (id: string, route: string, startMs: number, tx: string) =>
  trace(id, 'notify', startMs, {
    method: 'POST',
    url: `http://127.0.0.1:1/api/svc/notify/${route}`,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ transaction_id: tx }),
  });

/** pay-in, pay-out and transfer sent one after the other from `startMs`, as step 7 sends them. */
const sendAll = (prefix: string, startMs: number) =>
  ['pay-in', 'pay-out', 'transfer'].map((route, i) =>
    notify(`${prefix}${route}`, route, startMs + 100 * i, `tx-${prefix}${route}`),
  );

function exchange(id: string, startMs: number, operation: Exchange['operation'] = 'authenticate'): Exchange {
  return {
    id,
    at: at(startMs),
    environment_id: 'sandbox',
    operation,
    request: { method: 'POST', url: 'http://127.0.0.1:2/x', headers: {}, body: null },
    response: null,
    duration_ms: 25,
    ok: true,
    error: null,
    explanation: null,
    curl: '',
  };
}

/** An old record (no `own`) whose last runs ended at the given times. */
function oldRecord(
  attempts: Partial<Record<'authenticate' | 'sign-in' | 'notifications', number>>,
  session?: string,
) {
  return Progress.parse({
    version: 1,
    environment_id: 'sandbox',
    obj: OBJ,
    sub: SUB,
    session: session ? { exchange_id: session, token: 'x.y.z', report: null } : null,
    attempts: Object.fromEntries(
      Object.entries(attempts).map(([step, ms]) => [step, { at: at(ms), ok: true, reason: null, fix: null }]),
    ),
  });
}

function profile(traces: Trace[], exchanges: Exchange[] = [], callbacks: Record<string, string> = {}) {
  const asked: string[] = [];
  const old: OldProfile = {
    traces,
    exchanges,
    callbackCarrying: async (token) => {
      asked.push(token);
      return callbacks[token] ?? null;
    },
  };
  return { old, asked };
}

describe('the own lists of an old progress record', () => {
  it('claims the last sign-in before its attempt and the callback that carried its X-Session-ID', async () => {
    const mine = sessionToken(OBJ, SUB, 2);
    const { old, asked } = profile(
      [
        signIn('stranger-before', 0, sessionToken(OBJ, SUB, 1)),
        signIn('mine', 5000, mine),
        signIn('stranger-after', 60_000, sessionToken(OBJ, SUB, 3)),
      ],
      [],
      { [mine]: 'e000000000007' },
    );
    const own = await ownOfOldProfile(oldRecord({ 'sign-in': 5100 }), old);
    expect(own.sign_ins).toEqual([{ at: at(5000), trace_id: 'mine', callback_id: 'e000000000007' }]);
    expect(asked).toEqual([mine]);
  });

  it('claims no sign-in without an attempt, long before it, or for another customer', async () => {
    const traces = [signIn('a', 0, sessionToken(OBJ, SUB, 1))];
    expect((await ownOfOldProfile(oldRecord({}), profile(traces).old)).sign_ins).toEqual([]);
    const late = oldRecord({ 'sign-in': 40 + ACTION_TAIL_MS + 1 });
    expect((await ownOfOldProfile(late, profile(traces).old)).sign_ins).toEqual([]);
    const other = [signIn('b', 0, sessionToken('DE02120300000000202051', SUB, 1))];
    expect((await ownOfOldProfile(oldRecord({ 'sign-in': 100 }), profile(other).old)).sign_ins).toEqual([]);
  });

  it('keeps a sign-in that never reached the bank without a callback', async () => {
    const own = await ownOfOldProfile(oldRecord({ 'sign-in': 100 }), profile([signIn('x', 0, null)]).old);
    expect(own.sign_ins).toEqual([{ at: at(0), trace_id: 'x', callback_id: null }]);
  });

  it('claims the last run of notifications back to back in route order, not a stranger’s', async () => {
    const traces = [
      ...sendAll('s-', 0),
      ...sendAll('', 10_000),
      notify('s-later', 'pay-in', 30_000, 'tx-s4'),
    ];
    const own = await ownOfOldProfile(oldRecord({ notifications: 10_300 }), profile(traces).old);
    expect(own.notifications.map((n) => [n.route, n.transaction_id, n.trace_id])).toEqual([
      ['transfer', 'tx-transfer', 'transfer'],
      ['pay-out', 'tx-pay-out', 'pay-out'],
      ['pay-in', 'tx-pay-in', 'pay-in'],
    ]);
  });

  it('stops at a notification out of the action’s order', async () => {
    const traces = [
      notify('in', 'pay-in', 10_000, 'tx-1'),
      notify('stranger', 'transfer', 10_050, 'tx-x'),
      notify('out', 'pay-out', 10_100, 'tx-2'),
      notify('tr', 'transfer', 10_200, 'tx-3'),
    ];
    const own = await ownOfOldProfile(oldRecord({ notifications: 10_300 }), profile(traces).old);
    expect(own.notifications.map((n) => n.trace_id)).toEqual(['tr', 'out']);
  });

  it('claims the session’s exchange and the authenticate of the last attempt, not the Service page’s', async () => {
    const exchanges = [
      exchange('session', 0),
      exchange('page-before', 1000),
      exchange('refused-last', 50_000),
      exchange('page-after', 90_000),
      exchange('register', 49_990, 'update-jwk'),
    ];
    const own = await ownOfOldProfile(
      oldRecord({ authenticate: 50_100 }, 'session'),
      profile([], exchanges).old,
    );
    expect(own.exchange_ids).toEqual(['refused-last', 'session']);
  });
});
