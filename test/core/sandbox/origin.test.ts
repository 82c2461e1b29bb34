/**
 * Requests from web pages refused by the sandbox (issue 24 item 9, the Origin half; DESIGN.md
 * "Bank endpoints": "Requests that carry an `Origin` header … are refused with 403 and kept as
 * compact refused records, on the bank endpoints and on the sandbox alike"). A page on another
 * origin can send a no-cors POST (text/plain or no body: no preflight) to any 127.0.0.1 port; it
 * must not rotate the sandbox's key, onboard, delete or change anything, or make it call out.
 *
 * Real parts: the composition root (createConsoleCore) with the sandbox listening on
 * 127.0.0.1, its profile database, requests made with node:http so the Origin header is exactly
 * the one given (Node's fetch sends none of its own).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';
import { rawRequest } from '../../support/raw-http';
import { cleanup, makeBankKey, tempDir } from './helpers';

let core: ConsoleCore | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
  await cleanup();
});

const ORIGIN = 'https://evil.example';

async function send(
  base: string,
  method: string,
  target: string,
  headers: Record<string, string>,
  body = '',
): Promise<{ status: number; json: { error?: string; detail?: string } | null }> {
  const r = await rawRequest(base, method, target, headers, body);
  try {
    return { status: r.status, json: JSON.parse(r.text) as { error?: string } };
  } catch {
    return { status: r.status, json: null };
  }
}

describe('the sandbox refuses requests carrying an Origin header', () => {
  it('every route, the spec’s and the controls: 403, nothing changed, each kept as a compact refused record', async () => {
    core = await createConsoleCore({ dataDir: await tempDir(), host: 'cli' });
    const key = await makeBankKey();
    const onboarded = await core.dispatch('sandbox.onboard', { jwk: key.jwk });
    const guid = (onboarded as { value: { counterparty_guid: string } }).value.counterparty_guid;
    const { url } = await core.listenSandbox({ host: '127.0.0.1', port: 0 });
    const kids = async () =>
      (
        (await send(url, 'GET', '/api/v1/.well-known/jwks.json', {})).json as { keys: { kid: string }[] }
      ).keys.map((k) => k.kid);
    const kidsBefore = await kids();

    const cp = `/sandbox/v1/counterparties/${guid}`;
    const routes: Array<[string, string, string]> = [
      ['POST', `/api/v1/counterparty/${guid}/jwk/authenticate`, ''],
      ['PUT', `/api/v1/counterparty/${guid}/jwk/${guid}`, JSON.stringify({ data: key.jwk })],
      ['POST', `/api/v1/counterparty/${guid}/jwk`, JSON.stringify({ data: key.jwk })],
      ['GET', `/api/v1/counterparty/${guid}/jwk`, ''],
      ['GET', '/api/v1/.well-known/jwks.json', ''],
      ['POST', '/sandbox/v1/counterparties', JSON.stringify({ jwk: (await makeBankKey()).jwk })],
      ['GET', '/sandbox/v1/counterparties', ''],
      ['GET', cp, ''],
      ['PATCH', cp, JSON.stringify({ bank_auth_url: 'http://127.0.0.1:9/' })],
      ['DELETE', cp, ''],
      ['POST', `${cp}/sign-in`, ''],
      ['POST', `${cp}/notify`, JSON.stringify({ event: 'pay-in' })],
      ['POST', '/sandbox/v1/keys/rotate', ''],
      ['GET', '/sandbox/v1/keys', ''],
      ['GET', '/sandbox/v1/traces', ''],
      ['GET', '/sandbox/v1/settings', ''],
      ['PATCH', '/sandbox/v1/settings', JSON.stringify({ key_grace_seconds: 60 })],
      ['GET', '/sandbox/v1/status', ''],
      ['GET', '/nowhere', ''],
    ];
    for (const [method, target, body] of routes) {
      // What a no-cors fetch from a page sends: Origin, and a text/plain body at most.
      const r = await send(
        url,
        method,
        target,
        { Origin: ORIGIN, 'Content-Type': 'text/plain;charset=UTF-8' },
        body,
      );
      expect(r.status, `${method} ${target}`).toBe(403);
      expect(r.json, `${method} ${target}`).toMatchObject({ error: 'origin_refused' });
      expect(r.json?.detail).toContain('Origin');
    }
    // `Origin: null` (a sandboxed iframe, a file: page) is an Origin too.
    expect((await send(url, 'POST', '/sandbox/v1/keys/rotate', { Origin: 'null' })).status).toBe(403);

    // Nothing changed: the key, the counterparty, its URLs.
    expect(await kids()).toEqual(kidsBefore);
    const status = await core.dispatch('sandbox.status', undefined);
    const counterparties = (
      status as {
        value: { counterparties: Array<{ counterparty_guid: string; bank_auth_url: string | null }> };
      }
    ).value.counterparties;
    expect(counterparties.map((c) => c.counterparty_guid)).toEqual([guid]);
    expect(counterparties[0]!.bank_auth_url).toBeNull();

    // Without an Origin the same rotation works: the refusal, not the route, stopped it.
    expect((await send(url, 'POST', '/sandbox/v1/keys/rotate', {})).status).toBe(200);
    expect(await kids()).not.toEqual(kidsBefore);

    // Each refusal is a compact refused record (a trace event with failed_check origin).
    const refused = routes.length + 1;
    let total = 0;
    for (let i = 0; i < 200 && total < refused; i++) {
      const page = await core.dispatch('events.query', { failed_check: 'origin', limit: 1 });
      total = (page as { value: { total: number } }).value.total;
      if (total < refused) await new Promise((r) => setTimeout(r, 20));
    }
    expect(total).toBe(refused);
    const page = await core.dispatch('events.query', { failed_check: 'origin', limit: 1 });
    const id = (page as { value: { events: Array<{ id: string }> } }).value.events[0]!.id;
    const one = await core.dispatch('events.get', { id });
    expect((one as { value: unknown }).value).toMatchObject({
      kind: 'trace',
      path: '/sandbox/v1/keys/rotate',
      method: 'POST',
      status: 403,
      failed_check: 'origin',
      request: null,
      data: { compact: true, reason: expect.stringContaining('Origin') },
    });
  }, 60_000);
});
