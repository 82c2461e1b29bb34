/**
 * The service's endpoints (spec 4.1, under /api/v1), exactly as specified, plus the public
 * guide's POST and GET .../jwk (DESIGN.md "What the service's public documentation adds").
 * Every one except the JWKS requires the bank's JWT in CX-Authorization (spec 4, 5).
 */
import type { IncomingMessage } from 'node:http';
import type { SandboxEngine } from './engine';
import { jsonReply, type Route } from '../http';
import { JWKS_PATH } from '../common';

/** The CX-Authorization header (spec 2.4, 5), undefined when absent. */
export function cxAuthorization(req: IncomingMessage): string | undefined {
  const value = req.headers['cx-authorization'];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * A route's run for a call the bank makes on its own behalf (spec 4.1): the counterparty of the
 * path and the CX-Authorization header in, the engine's answer out as 200 JSON.
 */
function asBank(
  call: (counterpartyGuid: string, authorization: string | undefined) => Promise<unknown>,
): Route['run'] {
  return async ({ req, params }) =>
    jsonReply(200, await call(params.counterparty_guid ?? '', cxAuthorization(req)));
}

export function serviceRoutes(engine: SandboxEngine): Route[] {
  return [
    {
      // Spec 4.1 #2: check the bank's own JWT; answer a session_token. The benchmarked path.
      method: 'POST',
      path: '/api/v1/counterparty/:counterparty_guid/jwk/authenticate',
      body: 'none',
      run: asBank((guid, auth) => engine.authenticate(guid, auth)),
    },
    {
      // Spec 4.1 #1: register a new JWK under jwk_guid, authorized by an already registered key.
      method: 'PUT',
      path: '/api/v1/counterparty/:counterparty_guid/jwk/:jwk_guid',
      body: 'json',
      run: async ({ req, params, body }) => {
        await engine.registerJwk(params.counterparty_guid ?? '', cxAuthorization(req), body, {
          via: 'put',
          jwk_guid: params.jwk_guid ?? '',
        });
        return jsonReply(200, {});
      },
    },
    {
      // The guide: register a JWK under a fresh GUID, answered as {guid}.
      method: 'POST',
      path: '/api/v1/counterparty/:counterparty_guid/jwk',
      body: 'json',
      run: async ({ req, params, body }) => {
        const { jwk_guid } = await engine.registerJwk(
          params.counterparty_guid ?? '',
          cxAuthorization(req),
          body,
          {
            via: 'post',
          },
        );
        return jsonReply(200, { guid: jwk_guid });
      },
    },
    {
      // The guide: the registered keys, as [{guid, data: JWK}].
      method: 'GET',
      path: '/api/v1/counterparty/:counterparty_guid/jwk',
      body: 'none',
      run: asBank((guid, auth) => engine.listJwks(guid, auth)),
    },
    {
      // Spec 4.1 #3: the sandbox's public keys (active, then those in their grace period).
      method: 'GET',
      path: JWKS_PATH,
      body: 'none',
      run: async () => jsonReply(200, engine.jwks()),
    },
  ];
}
