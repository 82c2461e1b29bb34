import { z } from 'zod';
import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import type { Delivery } from '../../../electron/contract/schemas/delivery';
import { localPersist } from '../../shared/local-persist';
import { useEscalatedDeliveries } from '../../data/deliveries';
import { navigate } from '../../app/navigation';
import { useSandboxStore } from './sandbox-store';

/** When the engineer last opened the escalations from the header (ISO), '' never: a UI mark only. */
interface SeenState {
  seenAt: string;
  markSeen: (at: string) => void;
}

export const useEscalationsSeen = create<SeenState>()(
  persist(
    (set) => ({ seenAt: '', markSeen: (seenAt) => set({ seenAt }) }),
    localPersist('escalations-seen', z.object({ seenAt: z.string().max(40) }), (s) => ({ seenAt: s.seenAt })),
  ),
);

/** When a delivery escalated: its last attempt. */
export function escalatedAt(d: Delivery): string {
  return d.attempts.reduce((latest, a) => (a.at > latest ? a.at : latest), d.created_at);
}

/** The escalations the engineer has not opened yet, newest first. */
export function unseenEscalations(list: readonly Delivery[], seenAt: string): Delivery[] {
  return list
    .filter((d) => d.state === 'escalated' && escalatedAt(d) > seenAt)
    .sort((a, b) => (escalatedAt(a) < escalatedAt(b) ? 1 : -1));
}

/**
 * Header indicator (issue 27 item 3): notifications the sandbox escalated to manual processing
 * (the ladder ran out without a 2xx) since the engineer last looked. It leads to the Sandbox
 * page's deliveries, filtered to the escalated ones, the newest opened on its timeline. Live
 * through `sandbox.escalated` (data/deliveries.ts); nothing shows without a sandbox.
 */
export function EscalationPill() {
  const list = useEscalatedDeliveries().data ?? [];
  const seenAt = useEscalationsSeen((s) => s.seenAt);
  const markSeen = useEscalationsSeen((s) => s.markSeen);
  const unseen = unseenEscalations(list, seenAt);
  const newest = unseen[0];
  if (!newest) return null;
  const words = `${unseen.length} notification${unseen.length === 1 ? '' : 's'} escalated`;
  return (
    <span role="status">
      <a
        href="#/sandbox"
        className="behaviours-pill escalation-pill"
        data-testid="escalation-pill"
        data-count={unseen.length}
        title={`${words}: the bank never answered 2xx on the ladder (newest: ${newest.event} ${newest.transaction_id} to ${newest.url}). Open the deliveries.`}
        onClick={(e) => {
          e.preventDefault();
          useSandboxStore.getState().showDelivery(newest.delivery_id, 'escalated');
          markSeen(escalatedAt(newest));
          navigate('sandbox');
        }}
      >
        <span aria-hidden="true">!</span> {words}
      </a>
    </span>
  );
}
