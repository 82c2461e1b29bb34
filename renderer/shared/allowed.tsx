import type { ReactNode } from 'react';
import type { MethodName } from '../../electron/contract';
import { useMayCall } from '../data/app';

/**
 * Shows `children` only when this page's member may call `method` (issue 30 item 1). One rule on
 * every page: an action the role may not take is hidden, not disabled, decided by the contract's
 * role table (team-roles.ts, the one the hub itself applies), never by a list of the renderer's.
 * Outside a team hub every action is shown; the hub still refuses (403) whatever a page shows.
 *
 * @example
 * <Allowed method="bank.replay"><button onClick={replay}>Replay</button></Allowed>
 */
export function Allowed({ method, children }: { method: MethodName; children: ReactNode }) {
  return useMayCall(method) ? <>{children}</> : null;
}
