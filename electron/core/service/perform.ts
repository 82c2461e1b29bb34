/**
 * One exchange with the service (DESIGN.md "service client"): send the request, judge the
 * answer, explain a failure when the cause is known, record it (history and
 * `service.exchanged`). A refusal is an exchange with ok = false, never a thrown error.
 */
import { randomUUID } from 'node:crypto';
import type { Environment, Exchange } from '../../contract/schemas/service';
import type { ClientContext } from './client-context';
import { explainExchange } from './explain';
import {
  MAX_BODY_BYTES,
  sendServiceRequest,
  toCurl,
  type ServiceRequest,
  type ServiceResponse,
} from './http';
import type { Verdict } from './judges';
import { kidKnown } from './registrations';
import type { Target } from './target';

/** What one exchange is: the operation, where it goes, what it sends and how its answer is judged. */
export interface Perform {
  operation: Exchange['operation'];
  env: Environment;
  /** Null for calls that need no counterparty (fetch-jwks). */
  target: Target | null;
  request: ServiceRequest;
  signingKid: string | null;
  tokenExp: number | null;
  jwkKid?: string;
  jwkGuid?: string | null;
  /** For a 2xx answer: is it what the operation expects? */
  judge?: (body: string, reachedUrl: string) => Verdict;
}

/**
 * The headers of a signed call (spec 5.1: the bank JWT in CX-Authorization).
 *
 * @example
 * signedHeaders('eyJ…', true); // {'CX-Authorization': 'eyJ…', Accept: 'application/json', 'Content-Type': 'application/json'}
 */
export function signedHeaders(token: string, withBody: boolean): Record<string, string> {
  return {
    'CX-Authorization': token,
    Accept: 'application/json',
    ...(withBody ? { 'Content-Type': 'application/json' } : {}),
  };
}

interface Outcome {
  ok: boolean;
  error: string | null;
  explanation: string | null;
  jwkGuid: string | null;
}

/** ok/error from the transport and the status, then the operation's own judge on a 2xx. */
function judgeResponse(p: Perform, response: ServiceResponse): Outcome {
  const outcome: Outcome = {
    ok: response.ok && response.status >= 200 && response.status < 300,
    error: null,
    explanation: null,
    jwkGuid: p.jwkGuid ?? null,
  };
  if (!response.ok) {
    outcome.error = response.message;
  } else if (!outcome.ok) {
    outcome.error =
      response.body.trim() === ''
        ? `HTTP ${response.status} with an empty body`
        : response.body.slice(0, 4096);
  } else if (p.judge) {
    const verdict = p.judge(response.body, response.url);
    if (verdict.ok) {
      if (verdict.jwkGuid) outcome.jwkGuid = verdict.jwkGuid;
    } else {
      Object.assign(outcome, { ok: false, error: verdict.error, explanation: verdict.explanation });
    }
  }
  return outcome;
}

/** The recorded exchange: the request as sent, the answer (cut at MAX_BODY_BYTES), the verdict. */
function exchangeRecord(p: Perform, at: string, response: ServiceResponse, outcome: Outcome): Exchange {
  return {
    id: randomUUID(),
    at,
    environment_id: p.env.id,
    operation: p.operation,
    request: {
      method: p.request.method,
      url: p.request.url,
      headers: { ...p.request.headers },
      body: p.request.body,
    },
    response: response.ok
      ? {
          status: response.status,
          headers: response.headers,
          body: response.truncated ? `${response.body}\n[cut at ${MAX_BODY_BYTES} bytes]` : response.body,
        }
      : null,
    duration_ms: response.durationMs,
    ok: outcome.ok,
    error: outcome.error,
    explanation: outcome.explanation,
    curl: toCurl(p.request),
    signing_kid: p.signingKid,
    ...(p.jwkKid !== undefined ? { jwk_kid: p.jwkKid, jwk_guid: outcome.jwkGuid } : {}),
  };
}

/**
 * Sends one request and records the exchange; never throws for what the service answers.
 *
 * @example
 * const exchange = await perform(ctx, { operation: 'list-jwks', env, target, request, signingKid, tokenExp });
 * exchange.ok; // false on a 401, with exchange.explanation saying why when the cause is known
 */
export async function perform(ctx: ClientContext, p: Perform): Promise<Exchange> {
  const at = new Date(ctx.now()).toISOString();
  const response = await sendServiceRequest(ctx.options.fetch, p.request, ctx.timeoutMs);
  const outcome = judgeResponse(p, response);
  if (!outcome.ok && outcome.explanation === null) {
    outcome.explanation = explainExchange({
      operation: p.operation,
      environment: p.env,
      url: p.request.url,
      response,
      signingKid: p.signingKid,
      signingKidKnown: p.target ? await kidKnown(ctx, p.target, p.signingKid) : true,
      tokenExp: p.tokenExp,
      nowMs: ctx.now(),
    });
  }
  const exchange = exchangeRecord(p, at, response, outcome);
  try {
    await ctx.history.append(exchange);
  } catch (err) {
    // The request happened: its result is still returned and shown, only not kept.
    ctx.options.events.emit('app.noticed', {
      at: new Date(ctx.now()).toISOString(),
      level: 'warning',
      message: `an exchange with the service could not be kept in ${ctx.history.file}: ${err instanceof Error ? err.message : String(err)}`,
    });
  }
  ctx.options.events.emit('service.exchanged', exchange);
  return exchange;
}
