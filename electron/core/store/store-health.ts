/**
 * The event store's health (DESIGN.md "Storage"; contract StoreHealth): `ok`, `failing` while
 * writes fail (until a write actually succeeds, issue 24 item 8), `damaged` once damage is seen
 * (never healed by a commit: only `store recover` makes a fresh file), and the file's size with
 * the warning past its limit. Every change is logged once and announced (`store.changed`).
 */
import type { StoreHealth } from '../../contract/schemas/events';
import type { EventHub } from '../event-hub';
import type { StatementCache } from './statement-cache';

/** health() warns past this size (DESIGN.md "Storage": a warning as the database grows). */
export const SIZE_WARNING_BYTES = 1024 ** 3;

/** The store's health state, and where its changes are told. */
export class HealthState {
  private state: StoreHealth;

  constructor(
    private readonly file: string,
    private readonly hub: EventHub,
    private readonly log: (line: string) => void,
    /** The size fields of a snapshot (sizeOf below). */
    private readonly size: () => Pick<StoreHealth, 'size_bytes' | 'size_warning'>,
  ) {
    this.state = { state: 'ok', file, since: new Date().toISOString(), detail: null };
  }

  /** The state alone (no size read). */
  get current(): StoreHealth['state'] {
    return this.state.state;
  }

  /** The whole health, its size read now. */
  snapshot(): StoreHealth {
    return { ...this.state, ...this.size() };
  }

  /** Moves to `state` (damage stays), logging and announcing a change once. */
  set(state: StoreHealth['state'], detail: string | null): void {
    const was = this.state.state;
    if (was === state && (state === 'ok' || this.state.detail === detail)) return;
    if (was === 'damaged' && state === 'ok') return; // damage is not healed by a commit
    this.state = { state, file: this.file, since: new Date().toISOString(), detail };
    if (state === 'failing') this.log(`event store: writing to ${this.file} failed: ${detail}`);
    else if (state === 'damaged')
      this.log(
        `event store: ${this.file} is damaged: ${detail}. What is readable is still served; to move it into a fresh database, stop the console and run \`dets-console store recover\` (the damaged file is kept beside it).`,
      );
    else this.log(`event store: writing to ${this.file} works again`);
    try {
      this.hub.emit('store.changed', this.snapshot());
    } catch {
      // a listener's failure never breaks the store
    }
  }
}

/** The file's size from its page count (O(1)), and the warning past `limit` bytes. */
export function sizeOf(
  statements: StatementCache,
  file: string,
  limit: number,
): Pick<StoreHealth, 'size_bytes' | 'size_warning'> {
  try {
    const count = Number(statements.get('PRAGMA page_count').get()?.page_count ?? 0);
    const page = Number(statements.get('PRAGMA page_size').get()?.page_size ?? 0);
    const bytes = count * page;
    const gib = (n: number) => `${(n / 1024 ** 3).toFixed(n < 1024 ** 3 ? 3 : 1)} GiB`;
    return {
      size_bytes: bytes,
      size_warning:
        bytes > limit
          ? `The database ${file} is ${gib(bytes)}, past ${gib(limit)}: acknowledged notifications are all kept unless you set their retention (Notifications page; default: keep), so it only grows; export what you need (events export) and keep an eye on the disk.`
          : null,
    };
  } catch {
    return {};
  }
}
