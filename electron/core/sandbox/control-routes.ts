/**
 * The sandbox-only controls under /sandbox/v1 (DESIGN.md "Sandbox service"): onboarding,
 * counterparties, the registration flow (sign-in), notifications on demand, and extras for
 * scripts (key rotation, traces, settings, status). The real service's onboarding and business
 * API are not specified (spec 5.2, 4.3), so these are stand-ins, kept apart from /api/v1.
 */
import { badRequest } from './errors';
import type { SandboxEngine } from './engine';
import { parseGuid } from './guid';
import { WHOLE_ARGUMENT } from '../common';
import type { Reply, Route } from './router';
import { cxAuthorization } from './service-routes';
import type { Trace } from '../../contract/schemas/sandbox';

function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('the body must be a JSON object', WHOLE_ARGUMENT);
  }
  return body as Record<string, unknown>;
}

export function controlRoutes(engine: SandboxEngine): Route[] {
  const counterparty = '/sandbox/v1/counterparties/:counterparty_guid';
  return [
    {
      method: 'POST',
      path: '/sandbox/v1/counterparties',
      body: 'json',
      run: async ({ body }) => ({ status: 201, body: await engine.onboard(objectBody(body)) }),
    },
    {
      method: 'GET',
      path: '/sandbox/v1/counterparties',
      body: 'none',
      run: async () => ({ status: 200, body: engine.status().counterparties }),
    },
    {
      method: 'GET',
      path: counterparty,
      body: 'none',
      run: async ({ params }) => ({ status: 200, body: engine.counterparty(params.counterparty_guid) }),
    },
    {
      method: 'PATCH',
      path: counterparty,
      body: 'json',
      run: async ({ params, body }) => {
        const guid = parseGuid('counterparty_guid', params.counterparty_guid);
        return {
          status: 200,
          body: await engine.updateCounterparty({ ...objectBody(body), counterparty_guid: guid }),
        };
      },
    },
    {
      method: 'DELETE',
      path: counterparty,
      body: 'none',
      run: async ({ params }) => ({
        status: 200,
        body: await engine.deleteCounterparty(params.counterparty_guid),
      }),
    },
    {
      // Spec 4.4: the registration flow, with the bank's JWT in CX-Authorization.
      method: 'POST',
      path: `${counterparty}/sign-in`,
      body: 'none',
      run: async ({ req, params }): Promise<Reply> => {
        const result = await engine.signIn(params.counterparty_guid, cxAuthorization(req));
        // DESIGN.md fixes the wire shape: `trace` is the array of steps.
        const body = { ok: result.ok, user: result.user, failed: result.failed, ...wireTrace(result.trace) };
        if (result.ok) return { status: 200, body };
        if (result.failed === 'bank_jwt') {
          const detail =
            result.trace.steps.find((s) => s.id === 'bank_jwt')?.detail ?? 'the bank JWT was refused';
          return { status: 401, body: { error: 'unauthorized', detail, ...body } };
        }
        return { status: 502, body };
      },
    },
    {
      // Spec 4.3, 6: a notification on demand; with `malformed` a body the bank must refuse (spec 2.7).
      method: 'POST',
      path: `${counterparty}/notify`,
      body: 'json',
      run: async ({ params, body }): Promise<Reply> => {
        const guid = parseGuid('counterparty_guid', params.counterparty_guid);
        const result = await engine.notify({ ...objectBody(body), counterparty_guid: guid });
        const { trace, ...rest } = result;
        if (result.status !== null) return { status: 200, body: { ...rest, ...wireTrace(trace) } };
        return {
          status: 502,
          body: {
            error: 'bank_unreachable',
            detail: result.error ?? 'the bank could not be reached',
            transaction_id: result.transaction_id,
            url: result.url,
            duration_ms: result.duration_ms,
            ...wireTrace(trace),
          },
        };
      },
    },
    {
      method: 'POST',
      path: '/sandbox/v1/keys/rotate',
      body: 'none',
      run: async () => {
        const kid = await engine.rotateKey();
        return { status: 200, body: { active_kid: kid, keys: engine.status().keys } };
      },
    },
    {
      method: 'GET',
      path: '/sandbox/v1/keys',
      body: 'none',
      run: async () => ({ status: 200, body: engine.status().keys }),
    },
    {
      method: 'GET',
      path: '/sandbox/v1/traces',
      body: 'none',
      run: async ({ query }) => {
        const guid = query.get('counterparty_guid');
        const limitText = query.get('limit');
        const limit = limitText === null ? undefined : Number(limitText);
        if (limit !== undefined && !Number.isInteger(limit)) {
          throw badRequest(`limit ${JSON.stringify(limitText)} is not a whole number`, 'limit');
        }
        return {
          status: 200,
          body: engine.traces({
            ...(guid === null ? {} : { counterparty_guid: guid }),
            ...(limit === undefined ? {} : { limit }),
          }),
        };
      },
    },
    {
      method: 'GET',
      path: '/sandbox/v1/settings',
      body: 'none',
      run: async () => ({ status: 200, body: engine.currentSettings() }),
    },
    {
      method: 'PATCH',
      path: '/sandbox/v1/settings',
      body: 'json',
      run: async ({ body }) => ({ status: 200, body: await engine.updateSettings(objectBody(body)) }),
    },
    {
      method: 'GET',
      path: '/sandbox/v1/status',
      body: 'none',
      run: async () => ({ status: 200, body: { url: engine.url, ...engine.status() } }),
    },
  ];
}

/**
 * A trace on the wire (DESIGN.md "Sandbox service": `"trace":[…]`): the steps as an array, and
 * the trace's id and total time beside it.
 */
function wireTrace(trace: Trace): { trace: Trace['steps']; trace_id: string; trace_duration_ms: number } {
  return { trace: trace.steps, trace_id: trace.id, trace_duration_ms: trace.duration_ms };
}
