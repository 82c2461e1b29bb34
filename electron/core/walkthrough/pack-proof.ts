/**
 * What proved each step, for the evidence pack (issue 26 items 2 and 3): the recorded events a
 * step names (callbacks, notifications, exchanges with the service), and for the steps no event
 * proves (the key, the saved counterparty_guid, the composed JWT, the probe from outside, the
 * retry rehearsal's delivery) the record that did. A reviewer of the pack can follow each green
 * step to the evidence without the console.
 */
import type { EventDetail } from '../../contract/schemas/events';
import type { WalkthroughState, WalkthroughStep } from '../../contract/schemas/walkthrough';
import type { GatheredFacts } from './facts';

/** One piece of evidence: its kind, its id in its store, when, and what it is in words. */
export interface Proof {
  kind: string;
  id: string;
  at: string | null;
  what: string;
}

function eventProof(e: EventDetail): Proof {
  const what =
    e.kind === 'notification'
      ? `POST ${e.path ?? '?'} transaction_id ${e.transaction_id ?? '—'}: ${e.status ?? '?'} (${e.outcome ?? 'not stored'})`
      : `${e.request?.method ?? 'GET'} ${e.path ?? '?'}: ${e.status ?? '?'}${e.failed_check ? ` (failed ${e.failed_check})` : ' (every check passed)'}`;
  return { kind: e.kind, id: e.id, at: e.at, what };
}

/** The records that prove steps which no stored event proves. */
function recordProofs(step: WalkthroughStep, state: WalkthroughState, facts: GatheredFacts): Proof[] {
  const env = facts.env;
  switch (step.id) {
    case 'key': {
      const key = facts.keys.find((k) => k.kid === env.active_kid);
      return key
        ? [
            {
              kind: 'key',
              id: key.kid,
              at: key.created_at,
              what: `key ${key.alg} ${key.bits} bits in the vault`,
            },
          ]
        : [];
    }
    case 'register': {
      const guid = env.counterparty_guid;
      if (!guid) return [];
      const jwkGuid = step.facts.find((f) => f.label === 'jwk_guid')?.value;
      return [
        {
          kind: env.kind === 'sandbox' ? 'sandbox counterparty' : 'counterparty_guid saved',
          id: guid,
          at: step.at,
          what: jwkGuid
            ? `JWK registered as jwk_guid ${jwkGuid}`
            : `counterparty_guid ${guid} answered by the service's onboarding`,
        },
      ];
    }
    case 'compose':
      return facts.composed
        ? [
            {
              kind: 'bank JWT',
              id: facts.composed.kid,
              at: facts.composed.at,
              what: `signed for obj ${facts.composed.obj}, sub ${facts.composed.sub}`,
            },
          ]
        : [];
    case 'callbacks': {
      const probe = state.reach?.probe;
      if (probe)
        return [{ kind: 'probe from outside', id: probe.url ?? '—', at: probe.at, what: probe.detail }];
      return env.kind === 'sandbox' && step.state === 'done'
        ? [
            {
              kind: 'sandbox counterparty',
              id: env.counterparty_guid ?? '—',
              at: step.at,
              what: step.summary,
            },
          ]
        : [];
    }
    case 'notifications': {
      const r = state.rehearsal;
      return r
        ? [
            {
              kind: 'retry rehearsal',
              id: r.delivery_id,
              at: r.at,
              what: `${r.ok ? 'passed' : 'failed'}: ${r.detail}`,
            },
          ]
        : [];
    }
    default:
      return [];
  }
}

/**
 * The evidence of `step`: the events and exchanges it names, then the records that proved it.
 *
 * @example
 * proofsOf(step, state, facts, events); // [{ kind: 'callback', id: '…', at: '…', what: 'GET /user_auth: 200 (every check passed)' }]
 */
export function proofsOf(
  step: WalkthroughStep,
  state: WalkthroughState,
  facts: GatheredFacts,
  events: readonly EventDetail[],
): Proof[] {
  const out: Proof[] = [];
  for (const id of step.event_ids) {
    const e = events.find((x) => x.id === id);
    const x = e ? null : facts.exchanges.find((y) => y.id === id);
    if (e) out.push(eventProof(e));
    else if (x) {
      out.push({
        kind: 'exchange',
        id: x.id,
        at: x.at,
        what: `${x.request.method} ${x.request.url}: ${x.response?.status ?? x.error ?? 'no answer'}`,
      });
    } else {
      out.push({ kind: 'event', id, at: null, what: 'not readable from the event store now' });
    }
  }
  return [...out, ...recordProofs(step, state, facts)];
}
