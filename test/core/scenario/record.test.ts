/**
 * `recordScenario` (issue 28 item 2): stored events become steps a replay can carry out with
 * fresh tokens: a /user_auth callback with a sound token a sign-in, one refused at a token check
 * the conformance flaw that check refuses, a notification's repeats folded into `duplicates`, a
 * rejected body the malformed kind it was, the rest left out with why. What it writes passes the
 * runner's own check, and holds no token and no transaction_id.
 */
import { describe, expect, it } from 'vitest';
import type { EventDetail } from '../../../electron/contract/schemas/events';
import { parseScenario, recordScenario } from '../../../electron/core/scenario';

const TX = '5f0b8c7e-2d7a-4d43-9a55-0f1f8f1b2c3d';
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';

function event(id: string, at: string, over: Partial<EventDetail>): EventDetail {
  return {
    id,
    at,
    kind: 'callback',
    path: null,
    method: 'GET',
    status: 200,
    outcome: null,
    transaction_id: null,
    failed_check: null,
    obj: 'DE89370400440532013000',
    sub: 'ops@bank.example',
    duration_ms: 12,
    warning: null,
    remote: '127.0.0.1',
    request: { method: 'GET', url: '/x', headers: { 'x-session-id': TOKEN }, body: null },
    response: null,
    checks: null,
    token: null,
    jwks: null,
    forward: null,
    ...over,
  };
}

const EVENTS: EventDetail[] = [
  // Out of order on purpose: the recording replays in the order things happened.
  event('e5', '2026-01-01T10:00:05Z', {
    kind: 'notification',
    path: '/api/svc/notify/pay-in',
    transaction_id: TX.toUpperCase(),
    outcome: 'repeat',
  }),
  event('e1', '2026-01-01T10:00:01Z', { path: '/user_auth' }),
  event('e2', '2026-01-01T10:00:02Z', { path: '/key' }),
  event('e3', '2026-01-01T10:00:03Z', { path: '/external_id', failed_check: 'exp', status: 401 }),
  event('e4', '2026-01-01T10:00:04Z', {
    kind: 'notification',
    path: '/api/svc/notify/pay-in',
    transaction_id: TX,
    outcome: 'accepted',
  }),
  event('e6', '2026-01-01T10:00:06Z', {
    kind: 'notification',
    path: '/api/svc/notify/pay-in',
    transaction_id: TX,
    outcome: 'repeat',
  }),
  event('e7', '2026-01-01T10:00:07Z', {
    kind: 'notification',
    path: '/api/svc/notify/pay-out',
    outcome: 'rejected',
    request: { method: 'POST', url: '/api/svc/notify/pay-out', headers: {}, body: 'transaction_id=1' },
  }),
  event('e8', '2026-01-01T10:00:08Z', { kind: 'exchange', path: '/api/v1/authenticate' }),
  event('e9', '2026-01-01T10:00:09Z', {
    path: '/user_auth',
    obj: 'DE02120300000000202051',
    sub: 'other@bank.example',
  }),
];

describe('recordScenario', () => {
  const { scenario, left_out } = recordScenario(EVENTS, 'recorded');

  it('makes a step of each callback and notification, in the order they happened', () => {
    expect(scenario.steps).toEqual([
      { name: 'sign-in', kind: 'sign-in' },
      { name: 'key', kind: 'callback', route: 'key', token: 'valid' },
      { name: 'external-id-expired', kind: 'callback', route: 'external_id', token: 'expired' },
      { name: 'pay-in', kind: 'notification', event: 'pay-in', faults: { duplicates: 2 } },
      { name: 'pay-out-malformed', kind: 'notification', event: 'pay-out', malformed: 'not-json' },
      { name: 'sign-in-2', kind: 'sign-in', obj: 'DE02120300000000202051', sub: 'other@bank.example' },
    ]);
    expect(scenario.variables).toEqual({ obj: 'DE89370400440532013000', sub: 'ops@bank.example' });
    expect(left_out).toEqual([
      { id: 'e8', why: expect.stringContaining('only callbacks and notifications') },
    ]);
  });

  it('writes what the runner accepts, with no token and no transaction_id', () => {
    const text = JSON.stringify(scenario);
    expect(parseScenario(text, 'recorded.json').steps).toHaveLength(6);
    expect(text).not.toContain(TOKEN);
    expect(text.toLowerCase()).not.toContain(TX);
  });

  it('keeps a notification prefix other than the spec’s', () => {
    const guide = recordScenario(
      [
        event('n1', '2026-01-01T10:00:00Z', {
          kind: 'notification',
          path: '/api/dcm/notify/transfer',
          transaction_id: TX,
          outcome: 'accepted',
        }),
      ],
      'guide',
    ).scenario;
    expect(guide.notify_prefix).toBe('/api/dcm/notify');
    expect(guide.steps).toEqual([{ name: 'transfer', kind: 'notification', event: 'transfer' }]);
  });
});
