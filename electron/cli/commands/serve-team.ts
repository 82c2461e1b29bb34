/**
 * `serve --team [--store postgres://…]` (issue 30; DESIGN.md "Team hub"): the hub's members
 * (the profile's members file, or the database's table), its door on the UI (core/team
 * TeamGuard) and the PostgreSQL event store. Wiring only.
 */
import type { ConsoleCore } from '../../core/console-core';
import { isPostgresUrl, openPgEventStore, type EventStore, type EventStoreOptions } from '../../core/store';
import type { RelayHub } from '../../core/team';
import {
  FileMemberStore,
  membersFile,
  PgMemberStore,
  PgRouteShare,
  TeamGuard,
  type MemberStore,
} from '../../core/team';
import { UsageError } from '../io';
import type { ServeOptions } from './serve-options';

/** --store: a postgres:// or postgresql:// URL (SQLite, the profile's, is the default). */
export function storeFlag(value: string): string {
  if (!isPostgresUrl(value))
    throw new UsageError(`--store: expected a postgres:// URL (SQLite, the profile's own, is the default)`);
  try {
    new URL(value);
  } catch {
    throw new UsageError('--store: not a URL');
  }
  return value;
}

/** The core's event store on PostgreSQL. */
export function pgEventStore(url: string): (options: EventStoreOptions) => Promise<EventStore> {
  return (options) => openPgEventStore(url, options);
}

/** The members of the hub (or of `team` commands): the database's with --store, else the profile's. */
export async function openMembers(dataDir: string, store: string | undefined): Promise<MemberStore> {
  return store ? PgMemberStore.open(store) : new FileMemberStore(membersFile(dataDir));
}

/**
 * The hub's door over the core's store, the member store it reads and, with --store, its part in
 * the routes of every hub on the database (route-share-pg.ts); serve closes the last two.
 */
export async function teamGuard(
  core: ConsoleCore,
  options: ServeOptions,
  log: (line: string) => void,
  relay: RelayHub,
): Promise<{ guard: TeamGuard; members: MemberStore; routes: (() => Promise<void>) | null }> {
  const members = await openMembers(options.dataDir, options.store);
  const count = (await members.list()).length;
  if (count === 0) log('team hub: no members yet: add one with `dets-console team add NAME --role admin`');
  const store = await core.store();
  const guard = new TeamGuard({
    members,
    audit: (event) => store.append(event, { durable: true }),
    hubName: options.publicUrl ? new URL(options.publicUrl).host : options.host,
    relay,
  });
  // Routes: a missed request's event goes to the store; a laptop's route is audited as its member's.
  relay.configure({
    record: (event) => void store.append(event).catch(() => undefined),
    audit: (caller, method, input, error) => guard.record(caller, method, input, error),
    // Live to every page, attached ones included (their hub-client re-emits the hub's stream).
    changed: (routes) => core.events.emit('team.rerouted', routes),
    log,
  });
  if (!options.store) return { guard, members, routes: null };
  try {
    const share = await PgRouteShare.open(options.store, relay, log);
    return { guard, members, routes: () => share.close() };
  } catch (err) {
    await members.close().catch(() => undefined);
    throw err;
  }
}
