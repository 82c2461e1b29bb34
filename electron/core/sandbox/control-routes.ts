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
import { jsonReply, type Reply, type Route, type RouteContext } from '../http';
import { cxAuthorization } from './service-routes';
import type { Trace } from '../../contract/schemas/sandbox';

function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('the body must be a JSON object', WHOLE_ARGUMENT);
  }
  return body as Record<string, unknown>;
}

/** The sandbox's controls: counterparties and their flows, then the extras for scripts. */
export function controlRoutes(engine: SandboxEngine): Route[] {
  return [...counterpartyRoutes(engine), ...extraRoutes(engine)];
}

const COUNTERPARTY = '/sandbox/v1/counterparties/:counterparty_guid';

/** Onboarding and one counterparty: read, change, remove, sign in, notify. */
function counterpartyRoutes(engine: SandboxEngine): Route[] {
  return [
    {
      method: 'POST',
      path: '/sandbox/v1/counterparties',
      body: 'json',
      run: async ({ body }) => jsonReply(201, await engine.onboard(objectBody(body))),
    },
    {
      method: 'GET',
      path: '/sandbox/v1/counterparties',
      body: 'none',
      run: async () => jsonReply(200, engine.status().counterparties),
    },
    {
      method: 'GET',
      path: COUNTERPARTY,
      body: 'none',
      run: async ({ params }) => jsonReply(200, engine.counterparty(params.counterparty_guid)),
    },
    {
      method: 'PATCH',
      path: COUNTERPARTY,
      body: 'json',
      run: async ({ params, body }) => {
        const guid = parseGuid('counterparty_guid', params.counterparty_guid);
        return jsonReply(
          200,
          await engine.updateCounterparty({ ...objectBody(body), counterparty_guid: guid }),
        );
      },
    },
    {
      method: 'DELETE',
      path: COUNTERPARTY,
      body: 'none',
      run: async ({ params }) => jsonReply(200, await engine.deleteCounterparty(params.counterparty_guid)),
    },
    // Spec 4.4: the registration flow, with the bank's JWT in CX-Authorization.
    { method: 'POST', path: `${COUNTERPARTY}/sign-in`, body: 'none', run: (ctx) => signIn(engine, ctx) },
    // Spec 4.3, 6: a notification on demand; with `malformed` a body the bank must refuse (spec 2.7).
    { method: 'POST', path: `${COUNTERPARTY}/notify`, body: 'json', run: (ctx) => notify(engine, ctx) },
  ];
}

async function signIn(engine: SandboxEngine, { req, params }: RouteContext): Promise<Reply> {
  const result = await engine.signIn(params.counterparty_guid, cxAuthorization(req));
  // DESIGN.md fixes the wire shape: `trace` is the array of steps.
  const body = { ok: result.ok, user: result.user, failed: result.failed, ...wireTrace(result.trace) };
  if (result.ok) return jsonReply(200, body);
  if (result.failed === 'bank_jwt') {
    const detail = result.trace.steps.find((s) => s.id === 'bank_jwt')?.detail ?? 'the bank JWT was refused';
    return jsonReply(401, { error: 'unauthorized', detail, ...body });
  }
  return jsonReply(502, body);
}

async function notify(engine: SandboxEngine, { params, body }: RouteContext): Promise<Reply> {
  const guid = parseGuid('counterparty_guid', params.counterparty_guid);
  const result = await engine.notify({ ...objectBody(body), counterparty_guid: guid });
  const { trace, ...rest } = result;
  if (result.status !== null) return jsonReply(200, { ...rest, ...wireTrace(trace) });
  return jsonReply(502, {
    error: 'bank_unreachable',
    detail: result.error ?? 'the bank could not be reached',
    transaction_id: result.transaction_id,
    delivery_id: result.delivery_id,
    url: result.url,
    duration_ms: result.duration_ms,
    ...wireTrace(trace),
  });
}

/** Extras for scripts: key rotation, traces, settings, status. */
function extraRoutes(engine: SandboxEngine): Route[] {
  return [
    {
      method: 'POST',
      path: '/sandbox/v1/keys/rotate',
      body: 'none',
      run: async () => {
        const kid = await engine.rotateKey();
        return jsonReply(200, { active_kid: kid, keys: engine.status().keys });
      },
    },
    {
      method: 'GET',
      path: '/sandbox/v1/keys',
      body: 'none',
      run: async () => jsonReply(200, engine.status().keys),
    },
    {
      method: 'GET',
      path: '/sandbox/v1/traces',
      body: 'none',
      run: async ({ query }) => jsonReply(200, engine.traces(traceQuery(query))),
    },
    {
      method: 'GET',
      path: '/sandbox/v1/settings',
      body: 'none',
      run: async () => jsonReply(200, engine.currentSettings()),
    },
    {
      method: 'PATCH',
      path: '/sandbox/v1/settings',
      body: 'json',
      run: async ({ body }) => jsonReply(200, await engine.updateSettings(objectBody(body))),
    },
    // Issue 27: a delivery with every attempt, and the newest 500 (DESIGN.md "Sandbox service").
    {
      method: 'GET',
      path: '/sandbox/v1/deliveries/:delivery_id',
      body: 'none',
      run: async ({ params }) => jsonReply(200, engine.delivery(params.delivery_id)),
    },
    {
      method: 'GET',
      path: '/sandbox/v1/deliveries',
      body: 'none',
      run: async ({ query }) => jsonReply(200, engine.listDeliveries(deliveryQuery(query))),
    },
    {
      method: 'GET',
      path: '/sandbox/v1/status',
      body: 'none',
      run: async () => jsonReply(200, { url: engine.url, ...engine.status() }),
    },
  ];
}

/** GET /sandbox/v1/traces' query: an optional counterparty_guid and a whole-number limit. */
function traceQuery(query: URLSearchParams): { counterparty_guid?: string; limit?: number } {
  const guid = query.get('counterparty_guid');
  const limitText = query.get('limit');
  const limit = limitText === null ? undefined : Number(limitText);
  if (limit !== undefined && !Number.isInteger(limit)) {
    throw badRequest(`limit ${JSON.stringify(limitText)} is not a whole number`, 'limit');
  }
  return {
    ...(guid === null ? {} : { counterparty_guid: guid }),
    ...(limit === undefined ? {} : { limit }),
  };
}

/** GET /sandbox/v1/deliveries' query: counterparty_guid, state, transaction_id, each optional. */
function deliveryQuery(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['counterparty_guid', 'state', 'transaction_id']) {
    const value = query.get(name);
    if (value !== null && value !== '') out[name] = value;
  }
  return out;
}

/**
 * A trace on the wire (DESIGN.md "Sandbox service": `"trace":[…]`): the steps as an array, and
 * the trace's id and total time beside it.
 */
function wireTrace(trace: Trace): { trace: Trace['steps']; trace_id: string; trace_duration_ms: number } {
  return { trace: trace.steps, trace_id: trace.id, trace_duration_ms: trace.duration_ms };
}
