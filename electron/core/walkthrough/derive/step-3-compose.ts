/**
 * Step 3: a bank JWT the console composed for the walkthrough.
 */
import { type DeriveContext, draft, type Draft, quote } from './shared';

/**
 * Derives step 3 from the JWT composed since the reset.
 *
 * @example
 * const d = composeStep(ctx);
 * d.state; // 'done' | 'failed' | 'pending' | 'waiting'
 */
export function composeStep(ctx: DeriveContext): Draft {
  const { facts, since, active } = ctx;
  const c = facts.composed && since(facts.composed.at) ? facts.composed : null;
  let d: Draft;
  if (c) {
    const note =
      active && c.kid !== active.kid
        ? ` The active key is now ${quote(active.kid)}: the next steps sign with it.`
        : '';
    d = draft(
      'done',
      `flow sign-in, obj ${quote(c.obj)}, sub ${quote(c.sub)}, signed by kid ${quote(c.kid)}.${note}`,
      {
        at: c.at,
      },
    );
    const exp = c.payload.exp;
    d.facts.push(
      { label: 'obj', value: c.obj },
      { label: 'sub', value: c.sub },
      { label: 'kid', value: c.kid },
      {
        label: 'exp',
        value: typeof exp === 'number' ? new Date(exp * 1000).toISOString() : String(exp),
      },
    );
  } else {
    d = draft(
      'pending',
      `Not composed yet: obj ${quote(facts.obj)} (a test customer of the bank endpoints), sub ${quote(facts.sub)}.`,
    );
  }
  d.action = 'Compose a bank JWT';
  return d;
}
