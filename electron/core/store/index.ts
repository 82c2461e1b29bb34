export type { EventReader, EventStore, EventStoreOptions, NewEvent, Retention, ScanFilter } from './types';
export { blankEvent } from './types';
export { openEventStore, DEFAULT_RETENTION } from './sqlite-store';
export { exportEvents } from './export';
export { summarize, formatEventId, parseEventId } from './records';
