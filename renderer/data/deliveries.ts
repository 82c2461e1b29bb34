/**
 * Notification deliveries as server state (issue 27 item 3): the sandbox's deliveries on their
 * ladder, each with every attempt, and the escalated ones the header shows. Live through the
 * event hub as every page is (STYLE.md 7): each `sandbox.attempted` carries the whole delivery
 * and replaces it in the cache, each `sandbox.escalated` joins the header's list; nothing polls.
 */
import { useState } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  DELIVERIES_LIST_MAX,
  SCENARIO_COUNTERPARTY_GUID,
  type Delivery,
} from '../../electron/contract/schemas/delivery';
import { useApi, useLiveEvent } from '../api/client-context';

/** Query keys of the deliveries. */
export const deliveryKeys = {
  all: ['deliveries'] as const,
  /** sandbox.deliveries: the newest 500, newest first; live `sandbox.attempted` merged in. */
  list: () => [...deliveryKeys.all, 'list'] as const,
  /** sandbox.deliveries({state: 'escalated'}): what the header's indicator counts. */
  escalated: () => [...deliveryKeys.all, 'escalated'] as const,
};

/**
 * `list` with `delivery` in its place (a newer state of one already listed replaces it), newest
 * first by creation, at most the 500 the core lists. A state older than the one held (fewer
 * attempts, or `delivering` after it ended) is ignored: live events and a refetch may cross.
 *
 * @example
 * mergeDelivery(old, delivery); // [delivery, ...old without it]
 */
export function mergeDelivery(list: readonly Delivery[] | undefined, delivery: Delivery): Delivery[] {
  const held = (list ?? []).find((d) => d.delivery_id === delivery.delivery_id);
  if (held && isOlder(delivery, held)) return [...(list ?? [])];
  const rest = (list ?? []).filter((d) => d.delivery_id !== delivery.delivery_id);
  return [delivery, ...rest]
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0))
    .slice(0, DELIVERIES_LIST_MAX);
}

function isOlder(candidate: Delivery, held: Delivery): boolean {
  if (candidate.attempts.length !== held.attempts.length) {
    return candidate.attempts.length < held.attempts.length;
  }
  return candidate.state === 'delivering' && held.state !== 'delivering';
}

function addDelivery(queryClient: QueryClient, key: readonly unknown[], delivery: Delivery): void {
  queryClient.setQueryData<Delivery[]>(key, (old) => mergeDelivery(old, delivery));
}

/** The sandbox's newest deliveries (newest first), kept live by {@link useDeliveryLiveUpdates}. */
export function useDeliveries() {
  const api = useApi();
  return useQuery({ queryKey: deliveryKeys.list(), queryFn: () => api.sandbox.deliveries({}) });
}

/**
 * Live deliveries while a page that shows them is open: every attempt, state and next time as
 * the core records it (`sandbox.attempted`).
 */
export function useDeliveryLiveUpdates(): void {
  const queryClient = useQueryClient();
  useLiveEvent('sandbox.attempted', (delivery) => {
    // A scenario run's deliveries are its own (the Scenarios page shows them), not the sandbox's.
    if (delivery.counterparty_guid === SCENARIO_COUNTERPARTY_GUID) return;
    addDelivery(queryClient, deliveryKeys.list(), delivery);
  });
}

/**
 * The latest state of a scenario run's notification delivery while `following` (issue 27 item
 * 4: a step on the service's ladder can take ~4 minutes), from the same `sandbox.attempted`
 * events; null until one arrives. Cleared when following starts again.
 */
export function useScenarioDelivery(following: boolean): Delivery | null {
  const [latest, setLatest] = useState<{ following: boolean; delivery: Delivery | null }>({
    following,
    delivery: null,
  });
  if (latest.following !== following) setLatest({ following, delivery: following ? null : latest.delivery });
  useLiveEvent('sandbox.attempted', (delivery) => {
    if (!following || delivery.counterparty_guid !== SCENARIO_COUNTERPARTY_GUID) return;
    setLatest({ following, delivery });
  });
  return latest.delivery;
}

/**
 * The escalated deliveries (the header's indicator). A console without a sandbox, or a member
 * whose role cannot read them, shows no indicator rather than an error on every page.
 */
export function useEscalatedDeliveries() {
  const api = useApi();
  return useQuery({
    queryKey: deliveryKeys.escalated(),
    queryFn: () => api.sandbox.deliveries({ state: 'escalated' }),
    retry: false,
  });
}

/** App-wide: an escalation joins the header's list at once, and the page's list if it is held. */
export function useEscalationLiveUpdates(): void {
  const queryClient = useQueryClient();
  useLiveEvent('sandbox.escalated', (delivery) => {
    addDelivery(queryClient, deliveryKeys.escalated(), delivery);
    if (queryClient.getQueryData(deliveryKeys.list())) {
      addDelivery(queryClient, deliveryKeys.list(), delivery);
    }
  });
}
