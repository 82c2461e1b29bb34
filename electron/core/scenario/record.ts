/**
 * Recording a scenario from stored events (DESIGN.md "Scenarios": `scenario record`; issue 28
 * item 2): a snapshot after the fact, as WireMock calls it. Each callback becomes a step of the
 * same route (a /user_auth one with a sound token a sign-in, one refused at a token check a
 * callback with the conformance flaw that check refuses), each notification a notification step,
 * its repeats folded into the first as `duplicates`, a rejected one the malformed body it was.
 * What a replay cannot carry over is left out on purpose: tokens (they expire within minutes,
 * so a replay signs fresh ones) and transaction_ids (fresh each run, or referenced). The
 * customer's obj and sub become the variables `obj` and `sub`, so `--obj`/`--sub` can replace them.
 */
import type { EventDetail } from '../../contract/schemas/events';
import {
  SCENARIO_SCHEMA_ID,
  SCENARIO_VERSION,
  type ScenarioFileInput,
  type TokenFlaw,
} from '../../contract/schemas/scenario';
import { DEFAULT_NOTIFY_PREFIX } from './notify-step';

/** The token check a stored callback failed → the conformance flaw a replay sends for it. */
const FLAW_OF_CHECK: Partial<Record<string, TokenFlaw>> = {
  present: 'no-header',
  structure: 'not-jwt',
  alg: 'alg-none',
  kid: 'unknown-kid',
  signature: 'wrong-key',
  exp: 'expired',
  iat: 'iat-future',
  nbf: 'iat-future',
  flow: 'flow',
  obj: 'unknown-obj',
  sub: 'foreign-sub',
};

const CALLBACK_ROUTE: Record<string, 'user_auth' | 'key' | 'external_id'> = {
  '/user_auth': 'user_auth',
  '/key': 'key',
  '/external_id': 'external_id',
};
const EVENTS = ['pay-in', 'pay-out', 'transfer'] as const;
const MAX_DUPLICATES = 10;

type Step = ScenarioFileInput['steps'][number];

/** What a recording made, and the events it could not use (with why). */
export interface Recorded {
  scenario: ScenarioFileInput;
  left_out: Array<{ id: string; why: string }>;
}

/** The malformed body a rejected notification had. */
function malformedOf(body: string | null | undefined): 'not-json' | 'no-transaction-id' | 'bad-uuid' {
  try {
    const value = JSON.parse(body ?? '') as unknown;
    return value && typeof value === 'object' && 'transaction_id' in value ? 'bad-uuid' : 'no-transaction-id';
  } catch {
    return 'not-json';
  }
}

/** `base`, then `base-2`, `base-3`…: step names are ids, unique in a file. */
function namer(): (base: string) => string {
  const used = new Map<string, number>();
  return (base) => {
    const n = (used.get(base) ?? 0) + 1;
    used.set(base, n);
    return n === 1 ? base : `${base}-${n}`;
  };
}

/**
 * A scenario named `name` from `events` (any order: they are replayed in the order they happened).
 *
 * @example
 * const { scenario } = recordScenario(await Promise.all(ids.map((id) => store.get(id))), 'sign-in-flow');
 */
export function recordScenario(events: readonly EventDetail[], name: string): Recorded {
  const sorted = [...events].sort((a, b) =>
    a.at === b.at ? a.id.localeCompare(b.id) : a.at.localeCompare(b.at),
  );
  const nameOf = namer();
  const steps: Step[] = [];
  const left_out: Recorded['left_out'] = [];
  const firstOf = new Map<string, Extract<Step, { kind: 'notification' }>>();
  let obj: string | null = null;
  let sub: string | null = null;
  let prefix: string | null = null;
  const who = (e: EventDetail) => {
    obj ??= e.obj;
    sub ??= e.sub;
    return {
      ...(e.obj && e.obj !== obj ? { obj: e.obj } : {}),
      ...(e.sub && e.sub !== sub ? { sub: e.sub } : {}),
    };
  };
  for (const e of sorted) {
    if (e.kind === 'callback' && e.path && CALLBACK_ROUTE[e.path]) {
      const route = CALLBACK_ROUTE[e.path]!;
      const flaw = e.failed_check ? FLAW_OF_CHECK[e.failed_check] : undefined;
      if (e.failed_check === 'crit' || e.failed_check === 'lifetime') {
        left_out.push({
          id: e.id,
          why: `a callback refused at ${e.failed_check}: no conformance flaw replays it`,
        });
      } else if (flaw) {
        steps.push({
          name: nameOf(`${route.replace('_', '-')}-${flaw}`),
          kind: 'callback',
          route,
          token: flaw,
          ...who(e),
        });
      } else if (route === 'user_auth') {
        steps.push({ name: nameOf('sign-in'), kind: 'sign-in', ...who(e) });
      } else {
        steps.push({
          name: nameOf(route.replace('_', '-')),
          kind: 'callback',
          route,
          token: 'valid',
          ...who(e),
        });
      }
      continue;
    }
    const event = e.kind === 'notification' ? EVENTS.find((x) => e.path?.endsWith(`/${x}`)) : undefined;
    if (!event) {
      left_out.push({
        id: e.id,
        why: `a ${e.kind} event${e.path ? ` (${e.path})` : ''}: only callbacks and notifications are replayed`,
      });
      continue;
    }
    prefix ??= e.path!.slice(0, -(event.length + 1));
    const key = e.transaction_id?.toLowerCase();
    const first = key ? firstOf.get(key) : undefined;
    if (first && e.outcome !== 'rejected') {
      const dup = (first.faults?.duplicates ?? 0) + 1;
      if (dup <= MAX_DUPLICATES) first.faults = { ...first.faults, duplicates: dup };
      else left_out.push({ id: e.id, why: `more than ${MAX_DUPLICATES} copies of one transaction_id` });
      continue;
    }
    const step: Extract<Step, { kind: 'notification' }> =
      e.outcome === 'rejected'
        ? {
            name: nameOf(`${event}-malformed`),
            kind: 'notification',
            event,
            malformed: malformedOf(e.request?.body),
          }
        : { name: nameOf(event), kind: 'notification', event };
    if (key && e.outcome !== 'rejected') firstOf.set(key, step);
    steps.push(step);
  }
  const variables: Record<string, string> = {};
  if (obj) variables.obj = obj;
  if (sub) variables.sub = sub;
  return {
    scenario: {
      $schema: SCENARIO_SCHEMA_ID,
      version: SCENARIO_VERSION,
      name,
      description: `Recorded from ${events.length} stored event${events.length === 1 ? '' : 's'}; tokens and transaction_ids are fresh on every run.`,
      ...(Object.keys(variables).length > 0 ? { variables } : {}),
      ...(prefix && prefix !== DEFAULT_NOTIFY_PREFIX ? { notify_prefix: prefix } : {}),
      steps,
    },
    left_out,
  };
}
