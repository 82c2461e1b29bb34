import type { EventStore, EventStoreOptions } from './types';

/** Placeholder until the event store lands (issue 5). */
export async function openEventStore(_options: EventStoreOptions): Promise<EventStore> {
  throw new Error('not implemented');
}
