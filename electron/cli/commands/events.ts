/**
 * `dets-console events [--data-dir DIR] [--kind notification|callback|exchange] [--json]
 * [--since ISO|DURATION] [--search TEXT] [--environment ID|NAME] [--limit N] [--follow]`: the
 * profile's stored events, oldest first (DESIGN.md "Command line"). The filters combine: `--since`
 * keeps events at or after a time or within a duration, `--environment` the callbacks of one
 * environment, `--search` those whose stored text contains TEXT (any case; the
 * full-text index), `--limit` the newest N of what is left (still printed oldest first), and
 * `--follow` then prints every new event as another process (serve, the desktop app) stores it,
 * until SIGINT/SIGTERM (exit 0).
 *
 * With --json, one JSON object per line: every summary field (`id`, `at`, `kind`, `path`,
 * `method`, `status`, `outcome`, `transaction_id`, `failed_check`, `obj`, `sub`, `duration_ms`,
 * `warning`, `remote`), so a notification carries `path`, `transaction_id` and `outcome` and a
 * callback `path`, `status` and `failed_check` (null when it passed), as DESIGN.md fixes.
 * Without it, a table a person can read.
 *
 * It reads the database while a `serve` or the desktop app on the same profile writes to it (WAL:
 * a reader never waits for the writer), so it opens it for reading only: nothing created, nothing
 * trimmed. A profile without a database lists nothing and creates nothing.
 */
import { EventKind, EventSummary, type EventDetail } from '../../contract/schemas/events';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { EventHub } from '../../core/event-hub';
import {
  openEventStore,
  openPgEventStore,
  type EventReader,
  type EventStoreOptions,
  type ScanFilter,
} from '../../core/store';
import { environmentId } from './events-environment';
import { storeFlag } from './serve-team';
import { DB_FILE } from '../../core/store/db';
import { EXIT, UsageError, dataDirFlag, numberFlag, parseFlags, type CliIo } from '../io';
import { EVENTS } from '../table';

/** How often `--follow` looks for new commits (a cheap indexed query on the reader's connection). */
const FOLLOW_POLL_MS = 200;
const DURATION_RE = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** An ISO 8601 date or date-time (what `--since` takes besides a duration). */
const ISO_RE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `--since`: an ISO 8601 time, or a duration back from `now` (`15m`, `2h`, `7d`); as ISO. */
export function parseSince(value: string, now: number): string {
  const d = DURATION_RE.exec(value);
  if (d) return new Date(now - Number(d[1]) * UNIT_MS[d[2] as keyof typeof UNIT_MS]).toISOString();
  const t = Date.parse(value);
  if (!ISO_RE.test(value) || Number.isNaN(t))
    throw new UsageError(`--since: "${value}" is neither an ISO 8601 time nor a duration like 15m, 2h, 7d`);
  return new Date(t).toISOString();
}

/** The kinds `--kind` accepts (DESIGN.md); sandbox traces are listed only without a filter. */
export const EVENT_KINDS = ['notification', 'callback', 'exchange', 'audit', 'route'] as const;
export type EventsKind = (typeof EVENT_KINDS)[number];

export interface EventsOptions {
  dataDir: string;
  kind?: EventsKind;
  json: boolean;
  /** ISO 8601, from --since. */
  since?: string;
  search?: string;
  /** --environment as given (an id or a name; resolved against the profile when run). */
  environment?: string;
  limit?: number;
  follow?: true;
  /** --store: a team hub's PostgreSQL store (issue 30). */
  store?: string;
}

/** Parses and checks every flag without side effects. */
export function parseEventsFlags(argv: string[], io: CliIo): EventsOptions {
  const { values } = parseFlags(argv, EVENTS);
  const options: EventsOptions = {
    dataDir: dataDirFlag(values['data-dir'], io, 'read'),
    json: values.json === true,
  };
  if (values.kind !== undefined) {
    if (!(EVENT_KINDS as readonly string[]).includes(values.kind)) {
      throw new UsageError(`--kind: "${values.kind}" is not one of ${EVENT_KINDS.join(', ')}`);
    }
    options.kind = values.kind as EventsKind;
  }
  if (values.since !== undefined) options.since = parseSince(values.since, Date.now());
  if (values.search !== undefined) {
    if (values.search === '') throw new UsageError('--search: must not be empty');
    if (values.search.length > 200) throw new UsageError('--search: at most 200 characters');
    options.search = values.search;
  }
  if (values.environment !== undefined) {
    if (values.environment === '' || values.environment.length > 200)
      throw new UsageError('--environment: give an environment id or name (at most 200 characters)');
    options.environment = values.environment;
  }
  const limit = numberFlag(EVENTS, 'limit', values.limit);
  if (limit !== undefined) options.limit = limit;
  if (values.follow === true) options.follow = true;
  if (values.store !== undefined) options.store = storeFlag(values.store);
  return options;
}

const SUMMARY_KEYS = Object.keys(EventSummary.shape) as Array<keyof EventSummary>;

/** The summary of a stored record, in the schema's key order (id, at, kind first). */
export function summaryOf(event: EventDetail): EventSummary {
  const out: Record<string, unknown> = {};
  for (const key of SUMMARY_KEYS) out[key] = event[key] ?? null;
  return out as EventSummary;
}

/** `dets-console events`. */
export async function eventsCommand(argv: string[], io: CliIo): Promise<number> {
  const options = parseEventsFlags(argv, io);
  const environment =
    options.environment === undefined ? undefined : await environmentId(options.dataDir, options.environment);
  const table = options.json ? null : new EventTable(io);
  const stop = options.follow ? io.waitForStop() : null;
  let stopped = false;
  void stop?.then(() => (stopped = true));
  // --follow on a profile whose database does not exist yet waits for the writer to create it.
  while (stop && !stopped && !options.store && !existsSync(dbPath(options.dataDir)))
    await Promise.race([stop, sleep(FOLLOW_POLL_MS)]);
  // A second opener beside a running serve: read only, never the writer's work.
  const storeOptions: EventStoreOptions & { readOnly: true } = {
    dataDir: options.dataDir,
    events: new EventHub(),
    readOnly: true,
  };
  // The file's identity when opened: `store recover` swaps a fresh file in under the same name,
  // and `--follow` must follow it (the old one, set aside, gets nothing new).
  let opened = fileId(dbPath(options.dataDir));
  let store = options.store
    ? await openPgEventStore(options.store, storeOptions)
    : await openEventStore(storeOptions);
  try {
    const filter: ScanFilter = {
      ...(options.kind ? { kind: EventKind.parse(options.kind) } : {}),
      ...(options.since ? { since: options.since } : {}),
      ...(options.search ? { text: options.search } : {}),
      ...(environment !== undefined ? { environment } : {}),
      ...(options.limit ? { last: options.limit } : {}),
    };
    let count = 0;
    let lastId: string | undefined;
    // The reader of stdout went away (`events | head -1`): stop listing, quietly (output.ts).
    const closed = () => io.stdoutClosed?.() === true;
    const print = async (f: ScanFilter) => {
      let batch: string[] = [];
      for await (const event of store.scan(f)) {
        if (closed()) return;
        count += 1;
        lastId = event.id;
        const summary = summaryOf(event);
        if (table) {
          table.add(summary);
          continue;
        }
        batch.push(JSON.stringify(summary));
        if (batch.length >= 500) {
          io.stdout(`${batch.join('\n')}\n`);
          batch = [];
        }
      }
      if (batch.length) io.stdout(`${batch.join('\n')}\n`);
    };
    await print(filter);
    if (stop) {
      table?.writePage();
      const { last: _, ...follow } = filter;
      while (!stopped && !closed()) {
        await Promise.race([stop, sleep(FOLLOW_POLL_MS)]);
        if (stopped) break;
        const now = options.store ? null : fileId(dbPath(options.dataDir));
        if (now !== null && now !== opened) {
          // A recovery replaced the file: the events it copied keep their ids, so reading the new
          // file after the last one printed neither repeats nor skips.
          await store.close();
          opened = now;
          store = await openEventStore(storeOptions);
        }
        await print(lastId === undefined ? follow : { ...follow, afterId: lastId });
        table?.writePage();
      }
    }
    if (closed()) return EXIT.OK;
    if (count === 0 && table) io.stdout(await nothingListed(options, store));
    table?.end(count);
    return EXIT.OK;
  } finally {
    await store.close();
  }
}

function dbPath(dataDir: string): string {
  return path.join(dataDir, DB_FILE);
}

/** A file's device and inode, or null when it is not there. */
function fileId(file: string): string | null {
  try {
    const st = statSync(file);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/**
 * What an empty listing says: that nothing is stored (of that kind), or, when a filter left
 * nothing of what is stored, that nothing matches, naming the filters (issue 24: "No events
 * stored." under a search that matched nothing sent people looking for a lost profile).
 */
async function nothingListed(options: EventsOptions, store: EventReader): Promise<string> {
  const nothingOfKind = options.kind ? `No ${options.kind} events stored.\n` : 'No events stored.\n';
  if (options.since === undefined && options.search === undefined && options.environment === undefined)
    return nothingOfKind;
  for await (const _ of store.scan({ ...(options.kind ? { kind: options.kind } : {}), last: 1 })) {
    const filters = [
      ...(options.kind ? [`--kind ${options.kind}`] : []),
      ...(options.since ? [`--since ${options.since}`] : []),
      ...(options.search ? [`--search ${JSON.stringify(options.search)}`] : []),
      ...(options.environment ? [`--environment ${JSON.stringify(options.environment)}`] : []),
    ];
    return `No events match ${filters.join(' ')}.\n`;
  }
  return nothingOfKind;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Columns of the text table: time, kind, route, status/outcome, failed check, id, duration. */
const COLUMNS = ['TIME', 'KIND', 'ROUTE', 'STATUS', 'FAILED CHECK', 'TRANSACTION / OBJ', 'DURATION'] as const;

function row(e: EventSummary): string[] {
  const status =
    e.kind === 'notification'
      ? `${e.status ?? '-'} ${e.outcome ?? ''}`.trim()
      : e.status === null
        ? '-'
        : String(e.status);
  const route = e.path === null ? '-' : e.method ? `${e.method} ${e.path}` : e.path;
  return [
    e.at,
    e.kind,
    route,
    status,
    e.failed_check ?? (e.kind === 'callback' ? 'passed' : '-'),
    e.transaction_id ?? e.obj ?? '-',
    e.duration_ms === null ? '-' : formatMs(e.duration_ms),
  ];
}

/** Milliseconds as the table shows them: one decimal under 10 ms, whole above. */
function formatMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

/**
 * Rows are written in pages of 200 with widths taken from each page, so a store of a million
 * events streams out without being held in memory.
 */
class EventTable {
  private rows: string[][] = [];
  private headerWritten = false;

  constructor(private readonly io: CliIo) {}

  add(e: EventSummary): void {
    this.rows.push(row(e));
    if (this.rows.length >= 200) this.writePage();
  }

  end(count: number): void {
    if (count === 0) return;
    this.writePage();
    this.io.stdout(`\n${count} event${count === 1 ? '' : 's'}, oldest first.\n`);
  }

  writePage(): void {
    if (this.rows.length === 0) return;
    const all = this.headerWritten ? this.rows : [[...COLUMNS], ...this.rows];
    const widths = COLUMNS.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
    const lines = all.map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    );
    this.io.stdout(`${lines.join('\n')}\n`);
    this.headerWritten = true;
    this.rows = [];
  }
}
