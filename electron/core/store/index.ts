export type { EventStore, EventStoreOptions, NewEvent } from './types';
export { blankEvent } from './types';
export { openEventStore } from './event-store';
export { exportEvents } from './export';
export { summarize, formatEventId, parseEventId } from './event-store';
