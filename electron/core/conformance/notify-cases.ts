/**
 * The `notify.*` conformance cases (issue 27 item 4; DESIGN.md "Conformance of a bank's
 * notification endpoints"): the service's side against the bank's notification endpoints
 * (spec 4.3, 6), and what the service's retries do to them (the service's public guide: any
 * answer other than 2xx is delivered again). Each case names the fault it catches in
 * docs/conformance.md. With a probe (`--notify-probe URL`, GET `URL/<transaction_id>` →
 * `{"count": N}`) every duplicate case also requires that the bank applied the transaction
 * exactly once; that is the only way to see a receiver that answers 200 but credits twice.
 *
 * A valid notification's answer is judged by the one answer judge (answer/notification.ts:
 * reachable, budget, status 200).
 */
import { randomUUID } from 'node:crypto';
import { NOTIFY_CASE_TEXTS, type NotifyCaseText } from '../../contract/notify-cases';
import type { CaseExchange, CaseResult } from '../../contract/schemas/conformance';
import { judgeNotificationAnswer } from '../answer';
import { postNotification, probeCount, type NotifySent } from './notify-send';
import { quote } from './send';

/** Where and how the cases run. */
export interface NotifyTarget {
  /** The host the service posts notifications to (bank_sender_url / bank_receiver_url). */
  notifyUrl: string;
  /** The path prefix (spec: /api/svc/notify; the public guide: /api/dcm/notify). */
  prefix: string;
  /** GET `{probe}/{transaction_id}` answers `{"count": N}`. */
  probeUrl?: string;
  giveUpMs: number;
}

type Kind = 'valid' | 'repeat' | 'upper-case' | 'concurrent' | 'lost-ack' | 'malformed';

/** A case: its words (the contract's, shared with the page and the docs) and how it is played. */
export interface NotifyCase extends NotifyCaseText {
  kind: Kind;
  event: 'pay-in' | 'pay-out' | 'transfer';
  malformed?: (id: string) => string;
}

/** How each case is played, by id (its words are NOTIFY_CASE_TEXTS'). */
const PLAYS: Record<string, Pick<NotifyCase, 'kind' | 'event' | 'malformed'>> = {
  'notify.pay-in.valid': { kind: 'valid', event: 'pay-in' },
  'notify.pay-out.valid': { kind: 'valid', event: 'pay-out' },
  'notify.transfer.valid': { kind: 'valid', event: 'transfer' },
  'notify.repeat': { kind: 'repeat', event: 'pay-in' },
  'notify.repeat.upper-case': { kind: 'upper-case', event: 'pay-in' },
  'notify.concurrent': { kind: 'concurrent', event: 'pay-in' },
  'notify.lost-ack': { kind: 'lost-ack', event: 'pay-in' },
  'notify.not-json': { kind: 'malformed', event: 'pay-in', malformed: (id) => `transaction_id=${id}` },
  'notify.no-transaction-id': {
    kind: 'malformed',
    event: 'pay-in',
    malformed: (id) => JSON.stringify({ transactionId: id }),
  },
  'notify.bad-uuid': {
    kind: 'malformed',
    event: 'pay-in',
    malformed: (id) => JSON.stringify({ transaction_id: `tx-${id.slice(0, 8)}` }),
  },
};

/** The cases in run order (ids are what CI tracks: never renamed). */
export const NOTIFY_CASES: readonly NotifyCase[] = NOTIFY_CASE_TEXTS.map((text) => {
  const play = PLAYS[text.id];
  if (!play) throw new Error(`notify case ${text.id} has no play`);
  return { ...text, ...play };
});

/** How many POSTs (and probe GETs) a case sends: what its timeout is counted from. */
export function notifyCaseRequests(c: NotifyCase, probe: boolean): number {
  const posts = { valid: 1, repeat: 2, 'upper-case': 2, concurrent: 5, 'lost-ack': 2, malformed: 1 }[c.kind];
  return posts + (probe && c.kind !== 'valid' && c.kind !== 'malformed' ? 1 : 0);
}

/** Why a valid notification's answer failed, per the one answer judge; null when it passed. */
function judged(sent: NotifySent): string | null {
  const r = sent.result;
  const failed = judgeNotificationAnswer(
    r.ok
      ? {
          arrived: true,
          status: r.status,
          durationMs: r.durationMs,
          contentType: r.headers['content-type'] ?? null,
          body: r.body,
        }
      : { arrived: false, durationMs: r.durationMs, why: r.message },
  ).find((c) => c.status === 'failed');
  return failed ? `${failed.id}: ${failed.detail}` : null;
}

/**
 * Runs one case against the bank and reports it.
 *
 * @example
 * for (const c of NOTIFY_CASES) results.push(await runNotifyCase(target, c));
 */
export async function runNotifyCase(target: NotifyTarget, c: NotifyCase): Promise<CaseResult> {
  const started = performance.now();
  const url = `${target.notifyUrl.replace(/\/+$/, '')}${target.prefix}/${c.event}`;
  const id = randomUUID();
  const body = JSON.stringify({ transaction_id: id });
  const opts = { giveUpMs: target.giveUpMs };
  const exchanges: CaseExchange[] = [];
  const post = async (text: string, label: string, dropOnStatus = false) => {
    const sent = await postNotification(url, text, label, { ...opts, dropOnStatus });
    exchanges.push(sent.record);
    return sent;
  };
  const problems: string[] = [];
  const expect200 = (sent: NotifySent, what: string) => {
    const why = judged(sent);
    if (why) problems.push(`${what}: ${why} (${quote(sent.result)})`);
  };

  switch (c.kind) {
    case 'valid':
      expect200(await post(body, 'valid notification'), 'the notification');
      break;
    case 'repeat':
      expect200(await post(body, 'first delivery'), 'the first delivery');
      expect200(await post(body, 'second delivery'), 'the repeat');
      break;
    case 'upper-case':
      expect200(await post(body, 'first delivery'), 'the first delivery');
      expect200(
        await post(JSON.stringify({ transaction_id: id.toUpperCase() }), 'again in upper case'),
        'the repeat in upper case',
      );
      break;
    case 'concurrent': {
      const copies = await Promise.all([1, 2, 3, 4, 5].map((k) => post(body, `copy ${k} of 5`)));
      copies.forEach((s, k) => expect200(s, `copy ${k + 1} of 5`));
      break;
    }
    case 'lost-ack': {
      const lost = await post(body, 'first delivery, answer dropped', true);
      if (lost.result.ok || lost.result.droppedStatus === undefined) {
        problems.push(`the first delivery got no answer at all (${quote(lost.result)})`);
      }
      expect200(await post(body, 'delivered again'), 'the delivery after the lost answer');
      break;
    }
    case 'malformed': {
      const sent = await post(c.malformed!(id), 'malformed body');
      const r = sent.result;
      if (!r.ok || r.status < 400 || r.status > 499) {
        problems.push(`expected a 4xx refusal, got ${quote(r)}`);
      }
      break;
    }
  }

  let probeNote = '';
  if (c.kind !== 'valid' && c.kind !== 'malformed') {
    if (target.probeUrl) {
      const probe = await probeCount(target.probeUrl, id, opts);
      exchanges.push(probe.record);
      if (probe.count === null) problems.push(`applied exactly once: not known (${probe.why})`);
      else if (probe.count !== 1)
        problems.push(`the bank applied transaction_id ${id} ${probe.count} times, not once`);
      else probeNote = '; the probe says it was applied once';
    } else {
      probeNote = '; applied exactly once: not checked (no --notify-probe)';
    }
  }
  const status = problems.length === 0 ? 'passed' : 'failed';
  const detail =
    status === 'passed'
      ? `${exchanges.filter((e) => e.request.method === 'POST').length} POST to ${url} answered as expected${probeNote}`
      : problems.join('\n');
  return {
    id: c.id,
    title: c.title,
    status,
    detail,
    route: 'notify',
    spec: c.spec,
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
    exchanges,
  };
}

/**
 * Every `notify.*` case in order, each told to `onBegin` as it begins and to `onCase` as it
 * finishes.
 *
 * @example
 * const cases = await runNotifyCases({ notifyUrl, prefix: '/api/svc/notify', giveUpMs: 5000 });
 */
export async function runNotifyCases(
  target: NotifyTarget,
  onCase?: (result: CaseResult) => void,
  onBegin?: (c: NotifyCase) => void,
): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of NOTIFY_CASES) {
    onBegin?.(c);
    const result = await runNotifyCase(target, c);
    results.push(result);
    onCase?.(result);
  }
  return results;
}
