/** The profile database: the event store, its owner claim and recovery, and the tables other domains keep in it. */
export type { EventReader, EventStore, EventStoreOptions, NewEvent, Retention, ScanFilter } from './types';
export { blankEvent } from './types';
export { openEventStore, DEFAULT_RETENTION } from './sqlite-store';
export { exportEvents } from './export';
export {
  summarize,
  formatEventId,
  parseEventId,
  verdictDetail,
  bodyDetail,
  UNPROVEN_CHECKS,
  FORBIDDEN_CHECK,
  storedAsRefused,
} from './records';
export { isCorruption, type Statement } from './db';
export { acquireProfileDb, metaStep, type ProfileDb, readMeta, type Step } from './profile-db';
export { defaultLog, migrateJsonLinesFile } from './file-migration';
export { claimProfile, recoveryWaitLine, type ClaimRole, type ProfileClaim } from './owner';
export { recoverIfRequested, requestRecovery } from './recover';
export { createNotificationRetention, type NotificationRetentionService } from './notification-retention';
export { openPgEventStore, isPostgresUrl, redactUrl } from './pg-store';
export { migratePgSchema, PG_NOTIFY_MAX_BYTES, PG_RELAY_CHANNEL, PG_ROUTES_CHANNEL } from './pg-schema';
export { PgListener, type PgListenerOptions } from './pg-listen';
export { DELIVERY_SQL, DELIVERIES_KEPT } from './sql';
