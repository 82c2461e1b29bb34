/**
 * What the store makes of a request before it writes it (issue 24 item 4; DESIGN.md "Storage"):
 * a request whose token was not proven (present, structure, alg, crit, kid, signature), or from a
 * web page (Origin), is a compact record under the `refused` cap whatever it carried; anything
 * else keeps its request and response, bounded (header values 1 KiB, sections 8 KiB, bodies
 * 64 KiB) with the sizes as received.
 */
import { describe, expect, it } from 'vitest';
import type { EventDetail } from '../../../electron/contract/schemas/events';
import { PENDING_ID, ROW, retentionClass, toRow } from '../../../electron/core/store/records';
import { blankEvent } from '../../../electron/core/store';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
/** A JWS with the given header, a plausible payload and a random-looking signature. */
const token = (header: Record<string, unknown>) =>
  `${b64(header)}.${b64({ flow: 'sign-in', obj: 'DE001', sub: 'ops@bank.example', iat: 1, exp: 2 })}.${'s'.repeat(342)}`;

function junk(bytes: number): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; bytes > 0; i++, bytes -= 1500) headers[`x-junk-${i}`] = 'j'.repeat(Math.min(1490, bytes));
  return headers;
}

function callback(failed: string | null, headers: Record<string, string>, over: Partial<EventDetail> = {}) {
  return {
    ...blankEvent('callback', '2026-01-01T00:00:00.000Z'),
    id: PENDING_ID,
    path: '/user_auth',
    method: 'GET',
    status: failed ? 401 : 200,
    failed_check: failed,
    obj: 'DE001',
    sub: 'ops@bank.example',
    remote: '127.0.0.1',
    duration_ms: 1.2,
    request: { method: 'GET', url: '/user_auth', headers, body: null },
    response: {
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error: 'unauthorized', check: failed, detail: 'the signature does not verify' }),
    },
    data: { verdict: { detail: 'the signature does not verify' } },
    ...over,
  } as EventDetail;
}

/** What one stored row costs: the record's JSON and the text the search table holds. */
const rowBytes = (row: ReturnType<typeof toRow>['row']) =>
  Buffer.byteLength(row[ROW.record]) + Buffer.byteLength(row[ROW.search]);

describe('compact records', () => {
  it.each(['present', 'structure', 'alg', 'crit', 'kid', 'signature'])(
    'a callback that failed %s: refused class, compact, the token header kept',
    (failed) => {
      const header = { alg: 'RS256', kid: 'svc-1', typ: 'JWT' };
      const headers = { host: '127.0.0.1', 'x-session-id': token(header), ...junk(15_000) };
      const e = callback(failed, headers);
      expect(retentionClass(e)).toBe('refused');
      const { stored, row } = toRow(e, 1, 256 * 1024);
      expect(stored).toMatchObject({
        failed_check: failed,
        path: '/user_auth',
        status: 401,
        // As the token claimed them, short (64 characters): for `events --search`.
        obj: 'DE001',
        sub: 'ops@bank.example',
        request: null,
        response: null,
        token: { header, payload: null },
        data: {
          compact: true,
          reason: `${failed}: the signature does not verify`,
          request_body_bytes: 0,
        },
      });
      expect((stored.data as { request_header_bytes: number }).request_header_bytes).toBeGreaterThan(15_000);
      expect(row[ROW.cls]).toBe('refused');
      expect(rowBytes(row)).toBeLessThan(1024);
    },
  );

  it('stays small whatever the sender makes long: header, kid, path, reason', () => {
    // What a sender controls: the path, every header, the token's header (hence the failed
    // check's detail, which quotes the kid); the remote address and warnings are the console's.
    const header = { alg: 'RS256', kid: 'k'.repeat(6000), typ: 'JWT', x: 'y'.repeat(6000) };
    const e = callback(
      'kid',
      { 'x-session-id': token(header), ...junk(15_000) },
      {
        path: `/user_auth${'/p'.repeat(3000)}`,
        obj: 'o'.repeat(6000),
        sub: 's'.repeat(6000),
        remote: '::ffff:127.0.0.1',
        data: { verdict: { detail: `kid ${'k'.repeat(6000)} is not in the service JWKS` } },
      },
    );
    const { stored, row } = toRow(e, 1, 256 * 1024);
    expect(stored.token?.header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(String(stored.token?.header?.kid).length).toBeLessThanOrEqual(65);
    expect(stored.obj?.length).toBeLessThanOrEqual(65);
    expect(stored.sub?.length).toBeLessThanOrEqual(65);
    expect((stored.data as { token_header_note: string }).token_header_note).toMatch(/only alg, kid/);
    // DESIGN.md: "about a kilobyte a request"; the worst a sender can make stays under 2 KiB.
    expect(rowBytes(row)).toBeLessThan(2048);
  });

  it('a request refused for its Origin is compact whatever its kind', () => {
    for (const kind of ['callback', 'notification', 'trace'] as const) {
      const e = {
        ...blankEvent(kind, '2026-01-01T00:00:00.000Z'),
        id: PENDING_ID,
        path: '/api/svc/notify/pay-in',
        status: 403,
        failed_check: 'origin',
        outcome: kind === 'notification' ? ('rejected' as const) : null,
        request: {
          method: 'POST',
          url: '/x',
          headers: { origin: 'https://evil.example', ...junk(12_000) },
          body: 'b'.repeat(90_000),
        },
      } as EventDetail;
      expect(retentionClass(e)).toBe('refused');
      const { stored, row } = toRow(e, 1, 256 * 1024);
      expect(stored.request).toBeNull();
      expect(stored.data).toMatchObject({ compact: true, request_body_bytes: 90_000 });
      expect(rowBytes(row)).toBeLessThan(1024);
    }
  });
});

describe('bounded records', () => {
  it('a proven token (failed at exp or later) keeps its request, bounded, the X-Session-ID whole', () => {
    const tok = token({ alg: 'RS256', kid: 'svc-1' });
    const e = callback('exp', { 'x-session-id': tok, ...junk(15_000) });
    expect(retentionClass(e)).toBe('callback');
    const { stored, row } = toRow(e, 1, 256 * 1024);
    expect(stored.request?.headers['x-session-id']).toBe(tok);
    expect(stored.request?.cut?.header_bytes).toBeGreaterThan(15_000);
    expect(stored.request?.cut?.headers_left_out).toBeGreaterThan(0);
    expect(Buffer.byteLength(row[ROW.record])).toBeLessThan(12 * 1024);
  });

  it('an acknowledged notification keeps its class and a body bounded at 64 KiB with its size', () => {
    const body = JSON.stringify({
      transaction_id: '7d6f0c2e-51a8-4b8e-9f0a-2d1e0c1b2a39',
      pad: 'x'.repeat(200_000),
    });
    const e = {
      ...blankEvent('notification', '2026-01-01T00:00:00.000Z'),
      id: PENDING_ID,
      outcome: 'accepted',
      status: 200,
      request: { method: 'POST', url: '/api/svc/notify/pay-in', headers: {}, body },
    } as EventDetail;
    const { stored, row } = toRow(e, 1, 256 * 1024);
    expect(row[ROW.cls]).toBe('ack');
    expect(stored.request?.body).toHaveLength(64 * 1024);
    expect(stored.request?.cut).toEqual({ body_bytes: body.length });
  });

  it('an event with nothing to cut is stored as it is', () => {
    const e = callback(null, { 'x-session-id': token({ alg: 'RS256' }), host: 'h' });
    expect(toRow(e, 1, 256 * 1024).stored).toBe(e);
  });
});
