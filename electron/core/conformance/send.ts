/**
 * One call to the bank under test, kept whole for the report: request headers with the token,
 * status, headers, body and duration. Each call opens its own connection (core/http/exchange), as
 * the service would. A customer's secret `key` in an answer is masked in what is kept (only its
 * length is shown), and a body is cut at 64 KiB.
 *
 * Threat model: the answer is untrusted; it is read with a size cap and a time limit (http's
 * exchange) and only ever quoted as text.
 */
import type { CaseExchange } from '../../contract/schemas/conformance';
import { exchange, type ExchangeResult } from '../http';
import { APP_NAME, APP_VERSION } from '../version';
import { decodeForReport } from './keys';
import type { RouteName } from './plan';
import { round, type RunState } from './run-state';

const MAX_BODY_KEPT = 64 * 1024;

/** A call's result, and its record as the report keeps it. */
export interface Sent {
  result: ExchangeResult;
  record: CaseExchange;
}

const symbols = (s: string) => [...s].length;

/** The body as kept in a report: text, a JSON `key` masked to its length, cut at 64 KiB. */
export function keptBody(body: Buffer): { text: string; truncated: boolean } {
  let text = body.toString('utf8');
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && typeof (value as { key?: unknown }).key === 'string') {
      const key = (value as { key: string }).key;
      text = JSON.stringify({ ...value, key: `<masked: ${symbols(key)} characters>` });
    }
  } catch {
    // not JSON: kept as it is
  }
  const truncated = text.length > MAX_BODY_KEPT;
  return { text: truncated ? `${text.slice(0, MAX_BODY_KEPT)}… (truncated)` : text, truncated };
}

/** A short, one-line quote of an answer for a case's detail (a `key` masked, cut at 200). */
export function quote(result: ExchangeResult): string {
  if (!result.ok) return `no answer (${result.message})`;
  let text = result.body.toString('utf8').replace(/\s+/g, ' ').trim();
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && typeof (value as { key?: unknown }).key === 'string') {
      text = JSON.stringify({ ...value, key: '<masked>' });
    }
  } catch {
    // not JSON
  }
  const body = text === '' ? 'an empty body' : text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return `${result.status} in ${Math.round(result.durationMs)} ms with ${body}`;
}

/** Did the bank answer with exactly this status? */
export const answered = (result: ExchangeResult, status: number) => result.ok && result.status === status;

/**
 * GET `${base}/${route}` with `token` as X-Session-ID (none when null), recorded under `label`.
 *
 * @example
 * const sent = await send(state, 'user_auth', validToken(state), 'valid token');
 * if (answered(sent.result, 200)) state.accepted.add('user_auth');
 */
export async function send(
  state: RunState,
  route: RouteName,
  token: string | null,
  label: string,
): Promise<Sent> {
  const url = `${state.base}/${route}`;
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'User-Agent': `${APP_NAME.replace(/\s+/g, '-')}-conformance/${APP_VERSION}`,
  };
  if (token !== null) headers['X-Session-ID'] = token;
  const at = new Date(state.runner.now()).toISOString();
  const result = await exchange({ method: 'GET', url, headers, giveUpMs: state.runner.giveUpMs });
  return { result, record: recordOf(label, at, url, headers, token, result) };
}

/**
 * A call as a report keeps it: the request (method GET unless said), the token decoded, the
 * answer with its body kept ({@link keptBody}) or why none came, the duration.
 */
export function recordOf(
  label: string,
  at: string,
  url: string,
  headers: Record<string, string>,
  token: string | null,
  result: ExchangeResult,
  method = 'GET',
): CaseExchange {
  let response: CaseExchange['response'] = null;
  if (result.ok) {
    const body = keptBody(result.body);
    response = {
      status: result.status,
      headers: result.headers,
      body: body.text,
      truncated: body.truncated || result.truncated,
    };
  }
  return {
    label,
    at,
    request: { method, url, headers },
    token: token === null ? null : decodeForReport(token),
    response,
    error: result.ok ? null : result.message,
    duration_ms: round(result.durationMs),
  };
}
