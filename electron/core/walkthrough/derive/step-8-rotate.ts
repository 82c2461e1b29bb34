/**
 * Step 8, rotation: the next key registered, proven and active. The proof is the rotation's
 * own record (the `service.rotated` event, from the walkthrough or the Service page): a key
 * that was merely registered by hand and authenticated with is not a rotation of the old one.
 */
import { type DeriveContext, draft, type Draft, quote, serviceAnswer } from './shared';

/**
 * Derives step 8 from the latest rotation record of this environment.
 *
 * @example
 * const d = rotateStep(ctx);
 * d.state; // 'done' | 'failed' | 'pending' | 'waiting'
 */
export function rotateStep(ctx: DeriveContext): Draft {
  const { facts, env, since, active, exchanges } = ctx;
  const r =
    facts.rotation && facts.rotation.environment_id === env.id && since(facts.rotation.finished_at)
      ? facts.rotation
      : null;
  let d: Draft;
  if (r && r.state === 'failed') {
    const step = r.steps.find((s) => s.status === 'failed');
    const put = step?.exchange_id ? exchanges.find((e) => e.id === step.exchange_id) : undefined;
    d = draft(
      'failed',
      `The rotation from ${quote(r.from_kid)} stopped at "${step?.title ?? 'a step'}"; ${quote(r.from_kid)} is still active.`,
      {
        reason:
          put && !put.ok
            ? `${serviceAnswer(put)} (${step?.detail ?? ''})`
            : (step?.detail ?? 'a step failed'),
        fix: 'Fix the cause and run this step again: it resumes with the same next key.',
        at: r.finished_at,
        event_ids: step?.exchange_id ? [step.exchange_id] : [],
      },
    );
  } else if (r) {
    const to = r.to_kid ?? '?';
    d = draft(
      'done',
      `Rotated from ${quote(r.from_kid)} to ${quote(to)}: registered with PUT, proven with authenticate, now active.`,
      {
        at: r.finished_at,
        event_ids: r.steps.flatMap((s) => (s.exchange_id ? [s.exchange_id] : [])),
      },
    );
    d.facts.push({ label: 'from', value: r.from_kid }, { label: 'to', value: to });
  } else {
    const when =
      active?.expires != null
        ? `The active key expires on ${active.expires} (in ${active.expires_in_days} days).`
        : active
          ? 'The active key has no expiry date.'
          : 'No active key yet.';
    d = draft('pending', `${when} Rotate it before then.`);
  }
  if (active?.expires && d.state !== 'pending') {
    d.facts.push({
      label: 'active key expires',
      value: `${active.expires} (in ${active.expires_in_days} days)`,
    });
  }
  d.action = 'Rotate the key';
  return d;
}
