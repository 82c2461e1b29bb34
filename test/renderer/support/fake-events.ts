import { ConsoleError } from '../../../electron/contract';
import { vi } from 'vitest';
import type { MethodInput, MethodOutput } from '../../../electron/contract';
import type { BankStatus, Customer } from '../../../electron/contract/schemas/bank';
import type {
  EventDetail,
  EventQuery,
  EventStats,
  EventSummary,
  NotificationRetention,
} from '../../../electron/contract/schemas/events';
import { contractApi } from './contract-api';
import { fakeApi } from './render';

/**
 * A ConsoleApi double for the issue-5 pages (Callbacks, Notifications, Bank): an in-memory event
 * store and bank whose calls are spies, and `emit` to play the core's live events.
 */

export const BANK_URL = 'http://127.0.0.1:7303';

export function summary(extra: Partial<EventSummary> & { id: string }): EventSummary {
  return {
    at: '2025-01-01T12:00:00.000Z',
    kind: 'callback',
    path: '/user_auth',
    method: 'GET',
    status: 200,
    outcome: null,
    transaction_id: null,
    failed_check: null,
    obj: 'DE89370400440532013000',
    sub: null,
    duration_ms: 40,
    warning: null,
    remote: '127.0.0.1',
    ...extra,
  };
}

const b64 = (v: unknown) =>
  btoa(JSON.stringify(v)).replaceAll('=', '').replaceAll('+', '-').replaceAll('/', '_');
/** The head of what the fake's bank.freshSession signs (the event id follows). */
export const FRESH_TOKEN = 'eyJmcmVzaCI6dHJ1ZX0.eyJmcmVzaCI6dHJ1ZX0';
export const SESSION_TOKEN = `${b64({ alg: 'RS256', kid: 'svc-1' })}.${b64({ flow: 'sign-in', obj: 'DE89' })}.c2ln`;

export function detail(s: EventSummary, extra: Partial<EventDetail> = {}): EventDetail {
  return {
    ...s,
    request: {
      method: 'GET',
      url: `${BANK_URL}${s.path ?? ''}?obj=${s.obj ?? ''}`,
      headers: { 'x-session-id': SESSION_TOKEN, host: '127.0.0.1:7303' },
      body: null,
    },
    response: {
      status: s.status ?? 200,
      headers: { 'content-type': 'application/json' },
      body: '{"ok":true}',
    },
    checks: [
      { id: 'structure', title: 'Structure', status: 'passed', detail: 'three parts' },
      {
        id: 'signature',
        title: 'Signature',
        status: s.failed_check === 'signature' ? 'failed' : 'passed',
        detail: s.failed_check === 'signature' ? 'kid svc-old is not in the service JWKS' : 'verified',
      },
    ],
    token: { header: { alg: 'RS256', kid: 'svc-1' }, payload: { flow: 'sign-in', obj: 'DE89' } },
    jwks: {
      url: 'http://127.0.0.1:7302/api/v1/.well-known/jwks.json',
      kids: ['svc-1'],
      fetched_at: '2025-01-01T11:59:00.000Z',
      stale: false,
      error: null,
    },
    forward: null,
    ...extra,
  };
}

export function bankStatus(extra: Partial<BankStatus> = {}): BankStatus {
  return {
    url: BANK_URL,
    notify_path_prefix: '/api/svc/notify',
    service_jwks_url: 'http://127.0.0.1:7302/api/v1/.well-known/jwks.json',
    service_jwks_setting: null,
    jwks: { kids: ['svc-1'], fetched_at: '2025-01-01T11:59:00.000Z', stale: false, error: null },
    customers: 1,
    behaviours: {},
    forward: { url: null },
    ...extra,
  };
}

/**
 * The store's filters (reader.ts whereOf), in memory: text is a substring of the summary columns;
 * `environmentOf` gives a callback's environment id (the store's column; summaries carry none).
 */
function matches(
  e: EventSummary,
  q: Omit<EventQuery, 'before' | 'limit'>,
  environmentOf: Record<string, string> = {},
): boolean {
  const failed = e.failed_check !== null || (e.kind === 'callback' && (e.status ?? 0) >= 400);
  const text = q.text?.toLowerCase();
  const cols = [e.path, e.transaction_id, e.obj, e.sub, e.failed_check, e.warning, e.remote];
  return (
    (!q.kind || e.kind === q.kind) &&
    (!q.path || e.path === q.path) &&
    (!q.outcome || e.outcome === q.outcome) &&
    (!q.failed_check || e.failed_check === q.failed_check) &&
    (!q.environment || (e.kind === 'callback' && environmentOf[e.id] === q.environment)) &&
    (q.failed === undefined || failed === q.failed) &&
    (!q.since || e.at >= q.since) &&
    (!text || cols.some((c) => (c ?? '').toLowerCase().includes(text)))
  );
}

export function fakeEventsConsole(
  options: {
    events?: EventSummary[];
    customers?: Customer[];
    status?: BankStatus;
    /** A callback's environment id by event id (the store's `environment` column, issue 26). */
    environmentOf?: Record<string, string>;
    /** What env.list answers (default: the sandbox alone). */
    environments?: MethodOutput<'env.list'>;
  } = {},
) {
  const base = fakeApi();
  const envOf = options.environmentOf ?? {};
  let events = [...(options.events ?? [])];
  let customers = structuredClone(options.customers ?? []);
  let status = options.status ?? bankStatus();
  let retention: NotificationRetention = { mode: 'keep' };
  /** Acknowledged notifications, newest first. */
  const acked = () => events.filter((e) => e.kind === 'notification' && e.outcome !== 'rejected');
  const view = (c: Customer) => {
    const { key, ...rest } = c;
    return { ...rest, key_hint: `${[...key].length} characters` };
  };
  const eventsApi = {
    query: vi.fn(async (q: EventQuery = {}) => {
      // `after`: stored after that event, i.e. above it in this newest-first list (as seq orders the store).
      const upTo = q.after === undefined ? -1 : events.findIndex((e) => e.id === q.after);
      let list = (upTo >= 0 ? events.slice(0, upTo) : events).filter((e) => matches(e, q, envOf));
      const total = list.length;
      if (q.before) list = list.slice(list.findIndex((e) => e.id === q.before) + 1);
      return { events: list.slice(0, q.limit ?? 100), total };
    }),
    stats: vi.fn(async (input: MethodInput<'events.stats'>): Promise<EventStats> => {
      const list = events.filter((e) => matches(e, input.query ?? {}, envOf));
      const counts = new Map<string | null, number>();
      if (input.by) for (const e of list) counts.set(e[input.by], (counts.get(e[input.by]) ?? 0) + 1);
      return {
        total: list.length,
        groups: [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count),
        rate: null,
      };
    }),
    get: vi.fn(async ({ id }: { id: string }) => {
      const envId = envOf[id];
      const name = options.environments?.environments.find((e) => e.id === envId)?.name ?? envId;
      const environment = envId ? { environment: { id: envId, name: name! } } : {};
      return detail(events.find((e) => e.id === id) ?? summary({ id }), environment);
    }),
    export: vi.fn(async (input: MethodInput<'events.export'>) => ({
      text: input.format === 'csv' ? 'id,at\n' : '{}\n',
      filename: `notifications.${input.format === 'csv' ? 'csv' : 'jsonl'}`,
      mime: input.format === 'csv' ? 'text/csv' : 'application/x-ndjson',
      count: 3,
    })),
    // The retention of acknowledged notifications: `last N` against the fake's notifications.
    retention: vi.fn(async (): Promise<MethodOutput<'events.retention'>> => ({
      rule: structuredClone(retention),
      notifications: acked().length,
      size_bytes: 5 * 1024 ** 2,
      size_warning: null,
    })),
    setRetention: vi.fn(
      async (input: MethodInput<'events.setRetention'>): Promise<MethodOutput<'events.setRetention'>> => {
        const gone = input.rule.mode === 'last' ? acked().slice(input.rule.count) : [];
        const removal = {
          count: gone.length,
          oldest_at: gone.at(-1)?.at ?? null,
          newest_at: gone[0]?.at ?? null,
        };
        if (!input.confirm) return { rule: structuredClone(retention), applied: false, removal };
        retention = input.rule;
        events = events.filter((e) => !gone.includes(e));
        return { rule: input.rule, applied: true, removal };
      },
    ),
  };
  const bank = {
    status: vi.fn(async () => structuredClone(status)),
    customers: vi.fn(async () => customers.map(view)),
    saveCustomer: vi.fn(async (c: Customer) => {
      customers = [...customers.filter((o) => o.obj !== c.obj), c];
      return view(c);
    }),
    removeCustomer: vi.fn(async ({ obj }: { obj: string }) => {
      customers = customers.filter((c) => c.obj !== obj);
      return { removed: obj };
    }),
    importCustomers: vi.fn(async ({ text }: { text: string }) => {
      customers = JSON.parse(text) as Customer[];
      return { imported: customers.length };
    }),
    exportCustomers: vi.fn(async () => ({ text: JSON.stringify(customers), filename: 'users.json' })),
    exportCustomersWithKeys: vi.fn(async () => ({
      path: '/api/download/ticket-1',
      filename: 'dets-console-users.json',
      count: customers.length,
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    })),
    setBehaviours: vi.fn(async (b: BankStatus['behaviours']) => {
      status = { ...status, behaviours: b };
      return b;
    }),
    setForward: vi.fn(async (f: BankStatus['forward']) => {
      status = { ...status, forward: f };
      return f;
    }),
    setNotifyPrefix: vi.fn(async ({ prefix }: { prefix: string }) => {
      if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix))
        throw new ConsoleError(
          'BAD_ARGUMENT',
          `notify path prefix ${JSON.stringify(prefix)} must be an absolute path`,
          { field: 'prefix' },
        );
      status = { ...status, notify_path_prefix: prefix };
      return { notify_path_prefix: prefix };
    }),
    recheck: vi.fn(async ({ id }: { id: string }) =>
      detail(
        events.find((e) => e.id === id)!,
        {
          // Today's verdict on the same token: the JWKS now knows the kid, so it passes.
          failed_check: null,
          warning: 'rechecked with the current JWKS',
          data: {
            recheck: {
              at: '2026-01-01T12:00:00.000Z',
              was: events.find((e) => e.id === id)!.failed_check,
              now: null,
              note: 'rechecked with the current JWKS; the stored event is unchanged',
            },
          },
        },
      ),
    ),
    replay: vi.fn(async ({ id }: { id: string }) => detail(summary({ id: `${id}-replay`, status: 200 }))),
    // A fresh X-Session-ID as the core signs it for a sandbox callback (issue 26 item 5).
    freshSession: vi.fn(async ({ id }: { id: string }) => ({
      token: `${FRESH_TOKEN}.${id}`,
      expires_at: '2030-01-01T12:05:00.000Z',
      kid: 'sandbox-2',
    })),
  };
  // "Save as scenario" (issue 28 item 2): a step per event saved, so a test sees which were sent.
  const scenario = {
    save: vi.fn(async (input: MethodInput<'scenario.save'>): Promise<MethodOutput<'scenario.save'>> => ({
      path: `${input.folder}/${input.file}`,
      recorded: {
        scenario: {
          version: 1,
          name: input.name,
          steps: (input.event_ids ?? []).map((id) => ({ name: id })),
        },
        left_out: [],
      },
    })),
  };
  const env = options.environments
    ? { list: vi.fn(async () => structuredClone(options.environments!)) }
    : base.handlers.env;
  const { api, emit } = contractApi({ ...base.handlers, env, events: eventsApi, bank, scenario });
  return {
    api,
    events: eventsApi,
    bank,
    scenario,
    emit,
    setEvents(next: EventSummary[]) {
      events = next;
    },
  };
}
