/**
 * `dets-console events [--data-dir DIR] [--kind notification|callback|exchange] [--json]`: the
 * profile's stored events, oldest first (DESIGN.md "Command line").
 *
 * With --json, one JSON object per line: every summary field (`id`, `at`, `kind`, `path`,
 * `method`, `status`, `outcome`, `transaction_id`, `failed_check`, `obj`, `sub`, `duration_ms`,
 * `warning`, `remote`), so a notification carries `path`, `transaction_id` and `outcome` and a
 * callback `path`, `status` and `failed_check` (null when it passed), as DESIGN.md fixes.
 * Without it, a table a person can read.
 *
 * It reads the store while a `serve` or the desktop app on the same profile appends to it, so it
 * opens the store for reading only (`readOnly`: nothing created, no torn tail cut, nothing
 * trimmed; those are the writer's to do) and the scan sees what was on disk when it began. A
 * profile without an event store lists nothing and creates nothing.
 */
import { EventKind, EventSummary, type EventDetail } from '../../contract/schemas/events';
import { EventHub } from '../../core/event-hub';
import { defaultDataDir } from '../../core/paths';
import { openEventStore, type EventStoreOptions } from '../../core/store';
import { EXIT, UsageError, dataDirFlag, parseFlags, type CliIo } from '../io';

const FLAGS = {
  'data-dir': { type: 'string' },
  kind: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** The kinds `--kind` accepts (DESIGN.md); sandbox traces are listed only without a filter. */
export const EVENT_KINDS = ['notification', 'callback', 'exchange'] as const;
export type EventsKind = (typeof EVENT_KINDS)[number];

export interface EventsOptions {
  dataDir: string;
  kind?: EventsKind;
  json: boolean;
}

/** Parses and checks every flag without side effects. */
export function parseEventsFlags(argv: string[], io: CliIo): EventsOptions {
  const { values } = parseFlags(argv, FLAGS);
  const options: EventsOptions = {
    dataDir: dataDirFlag(values['data-dir'], io, () => defaultDataDir(process.platform, io.env)),
    json: values.json === true,
  };
  if (values.kind !== undefined) {
    if (!(EVENT_KINDS as readonly string[]).includes(values.kind)) {
      throw new UsageError(`--kind: "${values.kind}" is not one of ${EVENT_KINDS.join(', ')}`);
    }
    options.kind = values.kind as EventsKind;
  }
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
  const table = options.json ? null : new EventTable(io);
  // A second opener beside a running serve: read only, never the writer's repairs.
  const storeOptions: EventStoreOptions & { readOnly: true } = {
    dataDir: options.dataDir,
    events: new EventHub(),
    readOnly: true,
  };
  const store = await openEventStore(storeOptions);
  try {
    const filter = options.kind ? { kind: EventKind.parse(options.kind) } : {};
    let count = 0;
    let batch: string[] = [];
    for await (const event of store.scan(filter)) {
      count += 1;
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
    table?.end(count, options.kind);
    return EXIT.OK;
  } finally {
    await store.close();
  }
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

  end(count: number, kind: string | undefined): void {
    if (count === 0) {
      this.io.stdout(kind ? `No ${kind} events stored.\n` : 'No events stored.\n');
      return;
    }
    this.writePage();
    this.io.stdout(`\n${count} event${count === 1 ? '' : 's'}, oldest first.\n`);
  }

  private writePage(): void {
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
