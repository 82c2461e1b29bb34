/**
 * The calls of the notification cases (DESIGN.md "Conformance of a bank's notification
 * endpoints"): a POST of a body to `{notify-url}{prefix}/{event}`, and the probe's GET
 * `{probe}/{transaction_id}` → `{"count": N}`. Each call opens its own connection through the
 * one exchange (core/http/exchange.ts) and is kept whole for the report.
 *
 * Threat model: the bank under test is untrusted; answers are read with a 64 KiB cap and a time
 * limit and only quoted as text.
 */
import type { CaseExchange } from '../../contract/schemas/conformance';
import { exchange, type ExchangeResult } from '../http';
import { APP_NAME, APP_VERSION } from '../version';
import { recordOf } from './send';

const MAX_ANSWER = 64 * 1024;
const USER_AGENT = `${APP_NAME.replace(/\s+/g, '-')}-conformance/${APP_VERSION}`;

/** A call and its record for the report. */
export interface NotifySent {
  result: ExchangeResult;
  record: CaseExchange;
}

/**
 * POSTs `body` as application/json (what the service sends, spec 4.3) to `url`.
 *
 * @example
 * const sent = await postNotification(url, JSON.stringify({ transaction_id }), 'first copy', { giveUpMs: 5000 });
 */
export async function postNotification(
  url: string,
  body: string,
  label: string,
  options: { giveUpMs: number; dropOnStatus?: boolean; now?: () => number },
): Promise<NotifySent> {
  const headers = { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT };
  const at = new Date((options.now ?? Date.now)()).toISOString();
  const result = await exchange({
    method: 'POST',
    url,
    headers,
    body,
    giveUpMs: options.giveUpMs,
    maxBytes: MAX_ANSWER,
    dropOnStatus: options.dropOnStatus,
  });
  return { result, record: recordOf(label, at, url, headers, null, result, 'POST') };
}

/**
 * GET `{probe}/{transaction_id}`: how many times the bank applied it (`{"count": N}`), or why
 * that could not be read.
 */
export async function probeCount(
  probe: string,
  transactionId: string,
  options: { giveUpMs: number; now?: () => number },
): Promise<{ count: number | null; why: string | null; record: CaseExchange }> {
  const url = `${probe.replace(/\/+$/, '')}/${encodeURIComponent(transactionId)}`;
  const headers = { Accept: 'application/json', 'User-Agent': USER_AGENT };
  const at = new Date((options.now ?? Date.now)()).toISOString();
  const result = await exchange({
    method: 'GET',
    url,
    headers,
    giveUpMs: options.giveUpMs,
    maxBytes: MAX_ANSWER,
  });
  const record = recordOf('probe', at, url, headers, null, result);
  if (!result.ok) return { count: null, why: `the probe did not answer (${result.message})`, record };
  if (result.status !== 200)
    return { count: null, why: `the probe answered ${result.status}, not 200`, record };
  try {
    const value = JSON.parse(result.body.toString('utf8')) as { count?: unknown };
    if (typeof value?.count === 'number' && Number.isInteger(value.count)) {
      return { count: value.count, why: null, record };
    }
  } catch {
    // said below
  }
  return { count: null, why: 'the probe did not answer {"count": N} with a whole number', record };
}
