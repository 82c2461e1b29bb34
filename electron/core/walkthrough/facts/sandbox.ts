/**
 * The sandbox's facts (steps 2, 5, 6 and 7 on a sandbox environment): the counterparty of the
 * environment's counterparty_guid as the sandbox knows it, and the walkthrough's own sign-in and
 * notify traces. A sandbox that cannot be read is the step's reason, never thrown.
 */
import type { Trace } from '../../../contract/schemas/sandbox';
import type { Environment } from '../../../contract/schemas/service';
import type { CoreDeps } from '../../core-types';
import type { WalkthroughFacts } from '../fact-types';
import type { Progress } from '../progress';
import { messageOf } from '../message';

/** The sandbox's facts; `outsideTraces` counts the traces that are not the walkthrough's. */
export interface SandboxFacts {
  sandbox: WalkthroughFacts['sandbox'];
  traces: Trace[];
  outsideTraces: number;
}

/**
 * The sandbox's facts for `env` (none for a real environment).
 *
 * @example
 * const { sandbox, traces } = await gatherSandbox(deps, env, progress);
 */
export async function gatherSandbox(
  deps: CoreDeps,
  env: Environment,
  progress: Progress,
): Promise<SandboxFacts> {
  const out: SandboxFacts = { sandbox: null, traces: [], outsideTraces: 0 };
  if (env.kind !== 'sandbox') return out;
  const own = progress.own;
  const ownTraces = new Set([
    ...own.sign_ins.map((x) => x.trace_id),
    ...own.notifications.map((x) => x.trace_id),
  ]);
  try {
    const sb = await deps.sandbox();
    const status = await sb.status();
    const guid = env.counterparty_guid?.toLowerCase() ?? null;
    const counterparty = status.counterparties.find((c) => c.counterparty_guid === guid) ?? null;
    out.sandbox = { counterparty, error: null };
    if (counterparty) {
      // Only the walkthrough's own sign-ins and notifications prove (or fail) its steps; the
      // Sandbox page's traces are other traffic (issue 13 item 4).
      const all = await sb.traces({ counterparty_guid: counterparty.counterparty_guid, limit: 200 });
      out.traces = all.filter((t) => ownTraces.has(t.id));
      out.outsideTraces = all.length - out.traces.length;
    }
  } catch (err) {
    out.sandbox = { counterparty: null, error: messageOf(err) };
  }
  return out;
}
