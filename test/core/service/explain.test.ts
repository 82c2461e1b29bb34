/** Explanations and curl commands as pure functions: the cases the HTTP tests do not reach. */
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../../electron/contract/schemas/service';
import { explainExchange, serviceWords, type ExplainContext } from '../../../electron/core/service/explain';
import { toCurl, type ServiceResponse } from '../../../electron/core/service/http';

const env: Environment = {
  id: 'e1',
  name: 'Staging',
  kind: 'real',
  base_url: 'https://dets.staging.example',
  counterparty_guid: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
  active_kid: 'k1',
  default_obj: null,
  default_sub: null,
  service_jwks_url: null,
  effective_jwks_url: 'https://dets.staging.example/api/v1/.well-known/jwks.json',
};
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

function answer(status: number, body = '', headers: Record<string, string> = {}): ServiceResponse {
  return { ok: true, status, url: 'http://127.0.0.1:1/x', headers, body, truncated: false, durationMs: 12 };
}

function explain(over: Partial<ExplainContext>): string | null {
  return explainExchange({
    operation: 'authenticate',
    environment: env,
    url: `${env.base_url}/api/v1/counterparty/${env.counterparty_guid}/jwk/authenticate`,
    response: answer(200),
    signingKid: 'k1',
    signingKidKnown: true,
    tokenExp: NOW / 1000 + 300,
    nowMs: NOW,
    ...over,
  });
}

describe('explainExchange', () => {
  it('has nothing to add to a success', () => {
    expect(explain({})).toBeNull();
  });

  it('401: the usual causes, an expired token, the register-specific cause', () => {
    const text = explain({
      response: answer(401, 'Access credentials are invalid'),
      tokenExp: NOW / 1000 - 90,
    });
    expect(text).toMatch(/the guide's wording/);
    expect(text).toMatch(/the JWT sent had already expired \(exp 90 s ago\)/);
    const put = explain({ operation: 'update-jwk', response: answer(401, '') });
    expect(put).toMatch(
      /^The service refused the JWT in CX-Authorization \(401\)\. Usual causes: registering a JWK must be signed by a key already registered/,
    );
  });

  it('401 for a kid the console never registered: register it first', () => {
    const text = explain({
      response: answer(401, '{"error":"unauthorized"}'),
      signingKid: 'k2',
      signingKidKnown: false,
    });
    expect(text).toMatch(
      /^kid "k2" may not be registered yet for counterparty 3f2504e0-.*: register its JWK first \(PUT https:\/\/dets\.staging\.example\/api\/v1\/counterparty\/3f2504e0-[^/]+\/jwk\/\{jwk_guid\}, signed by the active key "k1"/,
    );
  });

  it('other statuses', () => {
    expect(explain({ response: answer(403, 'no') })).toMatch(/refused it \(403\): no/);
    expect(explain({ response: answer(429, '', { 'retry-after': '30' }) })).toMatch(/retry after 30 s/);
    expect(explain({ response: answer(503) })).toMatch(/gateway .* \(503\)/);
    expect(explain({ response: answer(500, '{"message":"boom"}') })).toMatch(
      /failed on its side \(500\): boom/,
    );
    expect(explain({ response: answer(405) })).toMatch(/does not accept this method/);
    expect(
      explain({ operation: 'update-jwk', response: answer(400, '{"detail":"data.n missing"}') }),
    ).toMatch(/refused the body \{"data": JWK\}: data\.n missing/);
    expect(explain({ operation: 'fetch-jwks', response: answer(404, '<html>nope</html>') })).toMatch(
      /No JWK set at/,
    );
  });

  it('network failures', () => {
    const fail = (failure: 'not-found' | 'tls' | 'reset'): ServiceResponse => ({
      ok: false,
      failure,
      message: 'x',
      durationMs: 1,
    });
    expect(explain({ response: fail('not-found') })).toMatch(/dets\.staging\.example could not be found/);
    expect(explain({ response: fail('tls') })).toMatch(/certificate is not trusted/);
    expect(explain({ response: fail('reset') })).toMatch(/connection .* was cut/);
  });
});

describe('serviceWords', () => {
  it('takes detail/message/error from JSON, free text as it is, nothing from HTML', () => {
    expect(serviceWords('{"error":"unauthorized","detail":"kid unknown"}')).toBe('kid unknown');
    expect(serviceWords('{"error":"bad"}')).toBe('bad');
    expect(serviceWords('Access credentials are invalid\n')).toBe('Access credentials are invalid');
    expect(serviceWords('<!doctype html><p>oops')).toBeNull();
    expect(serviceWords('   ')).toBeNull();
  });
});

describe('toCurl', () => {
  it('quotes for a POSIX shell and includes method, headers and body', () => {
    expect(
      toCurl({
        method: 'PUT',
        url: 'https://x.example/a',
        headers: { 'CX-Authorization': 'a.b.c', 'Content-Type': 'application/json' },
        body: `{"data":{"kid":"it's"}}`,
      }),
    ).toBe(
      `curl -sS -X PUT 'https://x.example/a' -H 'CX-Authorization: a.b.c' -H 'Content-Type: application/json' ` +
        `--data-raw '{"data":{"kid":"it'\\''s"}}'`,
    );
    expect(toCurl({ method: 'GET', url: 'https://x.example/j', headers: {}, body: null })).toBe(
      `curl -sS 'https://x.example/j'`,
    );
  });
});
