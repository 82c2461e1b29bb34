/**
 * Forward mode: the console sits between the service and the engineer's own backend. Each
 * callback (same method, path and X-Session-ID) and notification (same body) is passed to
 * `${forward.url}${path}`, the backend's answer is returned to the service as it is, and it is
 * judged by the service's rules (spec 4.2, 2.5, 2.6, 8): 200 or 401 as the token deserves, JSON,
 * the required fields, external_id up to 500 symbols, and an answer within 1 second.
 */
import type { Check, CheckId, FORWARD_VERDICT_IDS } from '../../contract/schemas/inspector';
import { budgetDetail, overBudget } from '../http/budget';
import { exchange, type ExchangeResult } from '../http/exchange';

export { CALLBACK_BUDGET_MS } from '../http/budget';
/** How long the console waits for the backend at all (the verdict flags anything over budget). */
export const FORWARD_GIVE_UP_MS = 10_000;

/**
 * Forward verdict ids: the contract's FORWARD_VERDICT_IDS, so verdicts are ordinary Checks.
 */
export type VerdictId = (typeof FORWARD_VERDICT_IDS)[number];
const TITLES: Record<VerdictId, string> = {
  reachable: 'Backend reachable',
  status: 'Status',
  json: 'JSON body',
  fields: 'Required fields',
  external_id: 'external_id length',
  time: 'Time (1 s budget)',
};

function verdict(id: VerdictId, status: Check['status'], detail: string): Check {
  return { id: id satisfies CheckId, title: TITLES[id], status, detail };
}

const REQUIRED: Record<string, string[]> = {
  '/user_auth': ['external_id', 'key', 'phone'],
  '/key': ['key'],
  '/external_id': ['external_id'],
};

export interface ForwardOutcome {
  url: string;
  result: ExchangeResult;
  verdicts: Check[];
}

export async function forwardRequest(input: {
  base: string;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}): Promise<ForwardOutcome> {
  const url = `${input.base.replace(/\/+$/, '')}${input.path}`;
  const result = await exchange({
    method: input.method,
    url,
    headers: input.headers,
    body: input.body,
    giveUpMs: FORWARD_GIVE_UP_MS,
  });
  return { url, result, verdicts: [] };
}

/** Judges a backend's answer to a callback; `tokenPassed` is the console's own verdict on the token. */
export function judgeCallback(
  path: string,
  result: ExchangeResult,
  tokenPassed: boolean,
  failedCheck: string | null,
): Check[] {
  if (!result.ok) return [verdict('reachable', 'failed', `the backend did not answer: ${result.message}`)];
  const out: Check[] = [];
  const s = result.status;
  if (tokenPassed) {
    out.push(
      s === 200
        ? verdict('status', 'passed', '200 for a token that passes every check')
        : verdict(
            'status',
            'failed',
            s === 401
              ? '401 for a token that passes every check: the backend refuses a valid service token (wrong JWKS? obj/sub rules?)'
              : `HTTP ${s} for a valid token; the service expects 200 (or 401 when a check fails)`,
          ),
    );
  } else {
    out.push(
      s === 401
        ? verdict('status', 'passed', `401 for a token that fails ${failedCheck ?? 'a check'}`)
        : verdict(
            'status',
            'failed',
            s === 200
              ? `200 for a token that fails the ${failedCheck ?? ''} check: the backend accepts a token it must refuse (spec 5.6)`
              : `HTTP ${s} for a token that fails the ${failedCheck ?? ''} check; the service expects 401 (spec 7)`,
          ),
    );
  }
  if (s === 200) {
    let body: unknown;
    try {
      body = JSON.parse(result.body.toString('utf8'));
    } catch {
      body = undefined;
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      out.push(verdict('json', 'failed', 'the 200 answer is not a JSON object'));
    } else {
      out.push(verdict('json', 'passed', 'a JSON object'));
      const obj = body as Record<string, unknown>;
      const required = REQUIRED[path] ?? [];
      const missing = required.filter((f) => typeof obj[f] !== 'string' || obj[f] === '');
      out.push(
        missing.length > 0
          ? verdict(
              'fields',
              'failed',
              `missing or not a non-empty string: ${missing.join(', ')} (required: ${required.join(', ')})`,
            )
          : verdict('fields', 'passed', `${required.join(', ')} present`),
      );
      if (typeof obj.external_id === 'string') {
        const n = [...obj.external_id].length;
        out.push(
          n <= 500
            ? verdict('external_id', 'passed', `${n} symbols (up to 500)`)
            : verdict('external_id', 'failed', `${n} symbols: over the spec's 500 (spec 8)`),
        );
      }
    }
  }
  out.push(timeVerdict(result.durationMs));
  return out;
}

/** Judges a backend's answer to a notification: 200 within budget. */
export function judgeNotification(result: ExchangeResult): Check[] {
  if (!result.ok) return [verdict('reachable', 'failed', `the backend did not answer: ${result.message}`)];
  return [
    result.status === 200
      ? verdict('status', 'passed', '200')
      : verdict('status', 'failed', `HTTP ${result.status}; the service expects 200 (spec 4.3)`),
    timeVerdict(result.durationMs),
  ];
}

function timeVerdict(ms: number): Check {
  return verdict('time', overBudget(ms) ? 'failed' : 'passed', budgetDetail(ms));
}
