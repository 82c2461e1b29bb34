import { z } from 'zod';
import {
  EventDetail,
  EventPage,
  EventQuery,
  EventStats,
  EventStatsQuery,
  EventSummary,
  NotificationRetentionChange,
  NotificationRetentionResult,
  NotificationRetentionState,
  StoreHealth,
} from '../schemas/events';
import { method, NoInput } from './method';

/** `events.*` methods: the event store (issue 5). */
export const eventsMethods = {
  'events.query': method({
    summary:
      'Stored events, newest first, filtered by kind, route, outcome, failed check, transaction_id, text, time.',
    input: EventQuery.optional(),
    output: EventPage,
  }),
  'events.stats': method({
    summary:
      'Counts from the store for the lists: how many match, per failed check or outcome, and per time bucket (the rate chart).',
    input: EventStatsQuery,
    output: EventStats,
  }),
  'events.get': method({
    summary: 'One stored event in full: request, response, checks, token, JWKS state, forward verdicts.',
    input: z.object({ id: z.string().min(1).max(100) }),
    output: EventDetail,
  }),
  'events.export': method({
    summary: 'Matching events as JSON Lines or CSV text, for a file the user saves.',
    input: z.object({ format: z.enum(['json', 'csv']), query: EventQuery.optional() }),
    output: z.object({ text: z.string(), filename: z.string(), mime: z.string(), count: z.number().int() }),
  }),
  'events.health': method({
    summary: 'Whether the event store writes and its database is sound (the header shows it when not).',
    input: NoInput,
    output: StoreHealth,
  }),
  'events.requestRecovery': method({
    summary:
      'Asks for `store recover` at the next start of the app or `serve`, before anything opens the database (the running console cannot replace it under itself).',
    input: NoInput,
    output: z.object({ requested_at: z.string() }),
  }),
  'events.retention': method({
    summary:
      'How long acknowledged notifications are kept (keep, N days, last N), how many there are, and the database size with its warning.',
    input: NoInput,
    output: NotificationRetentionState,
  }),
  'events.setRetention': method({
    summary:
      'Changes the retention of acknowledged notifications: without confirm, only reports what it would remove; with confirm, saves it and removes that.',
    input: NotificationRetentionChange,
    output: NotificationRetentionResult,
  }),
} as const;

/** `events.*` events. */
export const eventsEvents = {
  /** A new event was stored. */
  'events.appended': EventSummary,
  /** The event store's health changed: its writes failed or recovered, or its database was found damaged (issue 12). */
  'store.changed': StoreHealth,
} as const;
