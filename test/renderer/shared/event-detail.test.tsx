// @vitest-environment jsdom
/**
 * The event detail view shows what the store cut and what a compact record keeps (issue 24 item
 * 4; DESIGN.md "Storage": header values, header sections and bodies cut, "the original sizes are
 * kept"; a request whose token was not proven is a compact record).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import type { EventDetail } from '../../../electron/contract/schemas/events';
import { EventDetailView } from '../../../renderer/shared/event-detail';
import { compactNote, cutNote, readEvent } from '../../../renderer/shared/event-http';
import { BANK_URL, detail, summary } from '../support/fake-events';

afterEach(() => cleanup());

const show = (d: EventDetail) =>
  render(<EventDetailView detail={d} listenerUrl={BANK_URL} onClose={() => undefined} />);

describe('cut messages', () => {
  it('marks a cut request "cut", with the sizes as received', () => {
    const s = summary({ id: 'c1', path: '/user_auth', failed_check: 'obj', status: 401 });
    const base = detail(s);
    show(
      detail(s, {
        request: {
          ...base.request!,
          headers: { 'x-session-id': 'e30.e30.c2ln', 'x-pad': 'h'.repeat(1024) },
          cut: { header_bytes: 15_432, headers_left_out: 2, values: { 'x-pad': 15_000 } },
        },
        response: { ...base.response!, body: 'x'.repeat(100), cut: { body_bytes: 70_000 } },
      }),
    );
    expect(screen.getByTestId('event-request-cut').textContent).toBe('cut');
    const note = screen.getByTestId('event-request-cut-note').textContent ?? '';
    expect(note).toContain('headers 15,432 bytes as received');
    expect(note).toContain('2 headers left out past 8 KiB');
    expect(note).toContain('x-pad 15,000 bytes, cut to 1 KiB');
    expect(screen.getByTestId('event-response-cut-note').textContent).toContain(
      'body 70,000 bytes, cut to 64 KiB',
    );
  });

  it('shows no "cut" when nothing was cut', () => {
    show(detail(summary({ id: 'c2', path: '/user_auth', failed_check: null, status: 200 })));
    expect(screen.queryByTestId('event-request-cut')).toBeNull();
    expect(screen.queryByTestId('event-response-cut')).toBeNull();
    expect(cutNote(undefined)).toBeNull();
    expect(cutNote({})).toBeNull();
  });
});

describe('compact records', () => {
  const compact = (failed: string, kind: EventDetail['kind'] = 'callback'): EventDetail => ({
    ...summary({
      id: 'c3',
      path: '/user_auth',
      failed_check: failed,
      status: failed === 'origin' ? 403 : 401,
    }),
    kind,
    obj: null,
    sub: null,
    request: null,
    response: null,
    checks: null,
    token: failed === 'origin' ? null : { header: { alg: 'RS256', kid: 'svc-1' }, payload: null },
    jwks: null,
    forward: null,
    data: {
      compact: true,
      reason: `${failed}: the signature does not verify with the key svc-1`,
      request_header_bytes: 15_620,
      request_body_bytes: 0,
      response_body_bytes: 180,
    },
  });

  it('says why it is compact, what it keeps and the sizes; the reason is its own', () => {
    show(compact('signature'));
    const note = screen.getByTestId('event-compact').textContent ?? '';
    expect(note).toContain('its token was not proven (failed at signature)');
    expect(note).toContain('request headers 15,620 bytes');
    expect(note).toContain('response body 180 bytes');
    expect(screen.getByTestId('event-reason').textContent).toContain(
      'signature: the signature does not verify',
    );
    expect(screen.getByText('Not stored: a compact record keeps only its sizes.')).toBeTruthy();
    expect(screen.getByTestId('event-detail').getAttribute('data-kind')).toBe('refused request');
  });

  it('names a web page as the reason for an Origin refusal, for a notification or a sandbox trace too', () => {
    for (const kind of ['callback', 'notification', 'trace'] as const) {
      const d = compact('origin', kind);
      expect(compactNote(d)).toContain('it came from a web page (Origin header)');
      expect(readEvent(d)).toMatchObject({ kind: 'refused request', outcome: { status: 'failed' } });
    }
  });

  it('an event that is not compact has no compact note', () => {
    expect(
      compactNote(detail(summary({ id: 'c4', path: '/key', failed_check: null, status: 200 }))),
    ).toBeNull();
  });
});

describe('the environment a callback belongs to (issue 26)', () => {
  it('names the environment whose service published the kid, and nothing when none did', () => {
    const s = summary({ id: 'c9', path: '/user_auth', failed_check: null, status: 200 });
    show(detail(s, { environment: { id: 'env-1', name: 'Staging' } }));
    expect(screen.getByTestId('event-environment').textContent).toBe(' · environment Staging');
    cleanup();
    show(detail(s, { environment: null }));
    expect(screen.queryByTestId('event-environment')).toBeNull();
  });
});

describe('Copy as curl says when its token expires (issue 26)', () => {
  it('names the expiry of the X-Session-ID the copy carries, and says when it has passed', () => {
    const s = summary({ id: 'c10', path: '/user_auth', failed_check: null, status: 200 });
    const future = Math.floor(Date.now() / 1000) + 300;
    show(detail(s, { token: { header: { alg: 'RS256' }, payload: { exp: future } } }));
    expect(screen.getByTestId('event-copy-curl')).toBeTruthy();
    const note = screen.getByTestId('event-curl-expiry');
    expect(note.textContent).toMatch(/^its X-Session-ID expires /);
    expect(note.getAttribute('title')).toBe(new Date(future * 1000).toISOString());
    cleanup();
    show(detail(s, { token: { header: { alg: 'RS256' }, payload: { exp: 1_700_000_000 } } }));
    expect(screen.getByTestId('event-curl-expiry').textContent).toMatch(/expired .*answered 401 exp/);
  });
});
