/**
 * Step 5: the callback endpoints, and the service knowing where they are. A sandbox is given
 * the listener's URL; a real environment's URL is proven by the probe from outside.
 */
import type { StepFact, WalkthroughReach } from '../../../contract/schemas/walkthrough';
import { PROBE_FIXES } from './fixes';
import { type DeriveContext, draft, type Draft } from './shared';

/**
 * Step 5 on a real environment: what to register, and whether the service can reach it there.
 * Done only when the tunnel's probe from outside came back through this console (issue 14 item 3).
 */
export function reachStep(
  reach: WalkthroughReach | null,
  since: (at: string | null | undefined) => boolean,
): Draft {
  if (!reach?.bank_auth_url) {
    return draft('failed', 'The bank endpoints are not listening.', {
      reason: reach?.warning ?? 'no bank endpoints listener in this process',
      fix: 'Start `dets-console serve` or the desktop app.',
    });
  }
  const url = reach.bank_auth_url;
  const probe = reach.probe && since(reach.probe.at) ? reach.probe : null;
  const facts: StepFact[] = [
    { label: 'bank_auth_url', value: url },
    ...reach.notification_urls.map((n) => ({ label: 'notification URL', value: n })),
  ];
  let d: Draft;
  if (probe?.outcome === 'reachable') {
    d = draft(
      'done',
      `Reachable from outside: the probe sent to ${url} came back through this console in ${probe.rtt_ms ?? '?'} ms. Register ${url} with the service.`,
      { at: probe.at },
    );
  } else if (probe) {
    d = draft('failed', `The test from outside of ${reach.public_url ?? url} did not pass.`, {
      reason: probe.detail,
      fix: PROBE_FIXES[probe.outcome],
      at: probe.at,
    });
  } else {
    d = draft(
      'pending',
      `Register ${url} with the service as bank_auth_url and notification host, then test it from outside.`,
      reach.warning ? { fix: reach.warning } : {},
    );
  }
  d.facts.push(...facts);
  if (probe) {
    d.facts.push({
      label: 'test from outside',
      value: `${probe.outcome}${probe.rtt_ms !== null ? `, ${probe.rtt_ms} ms` : ''} at ${probe.at}`,
    });
  }
  return d;
}

/**
 * Derives step 5 from the listener and the sandbox's URLs, or the probe from outside.
 *
 * @example
 * const d = callbacksStep(ctx);
 * d.state; // 'done' | 'failed' | 'pending' | 'waiting'
 */
export function callbacksStep(ctx: DeriveContext): Draft {
  const { facts, sandbox, since } = ctx;
  let d: Draft;
  const url = facts.bankUrl;
  if (sandbox) {
    const cp = facts.sandbox?.counterparty ?? null;
    if (!url) {
      d = draft('failed', 'The bank endpoints are not listening.', {
        reason: 'no bank endpoints listener in this process',
        fix: 'Start them: the desktop app and `dets-console serve` do (--bank-port).',
      });
    } else if (!cp) {
      d = draft(
        'pending',
        `The bank endpoints listen at ${url}; the sandbox is given the URL once the bank is onboarded (step 2).`,
      );
    } else {
      const stale = (['bank_auth_url', 'bank_sender_url', 'bank_receiver_url'] as const).filter(
        (f) => cp[f] !== url,
      );
      d =
        stale.length === 0
          ? draft('done', `The sandbox calls the bank endpoints at ${url} (callbacks and notifications).`, {
              at: facts.attempts.callbacks?.ok ? facts.attempts.callbacks.at : cp.created_at,
            })
          : stale.every((f) => cp[f] === null)
            ? draft(
                'pending',
                `The bank endpoints listen at ${url}; the sandbox does not know where to call them yet.`,
                {
                  fix: 'Run this step: the console gives the sandbox the URL (no typing: it knows its own listener).',
                },
              )
            : draft(
                'pending',
                `The bank endpoints listen at ${url}, but the sandbox has ${stale.map((f) => `${f} ${cp[f] ?? 'unset'}`).join(', ')}.`,
                { fix: 'Run this step: the console gives the sandbox the current URL.' },
              );
    }
    d.action = 'Give the sandbox the bank URL';
  } else {
    // DESIGN.md "Environments": a probe from before the environment existed (the tunnel probes
    // its URL as it comes up) is not this environment's; it tests its reach again.
    const created = ctx.env.created_at ? Date.parse(ctx.env.created_at) : null;
    d = reachStep(facts.reach, (at) => since(at) && (created === null || Date.parse(at ?? '') >= created));
    d.action = 'Test from outside';
    d.action_input = 'bank_url';
  }
  if (url && sandbox) d.facts.push({ label: 'bank URL', value: url });
  return d;
}
