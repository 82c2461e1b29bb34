/**
 * The ConsoleApi contract: every method and live event the UI uses, written once as a table of
 * runtime schemas. The TypeScript types derive from the table, and every side is generated from
 * it: preload's facade, main's IPC handlers, the headless HTTP routes and the renderer's client.
 * A method therefore cannot exist on one side only (STYLE.md 3).
 *
 * This folder is the only part of `electron/` the renderer may import; it must stay free of
 * Node and Electron APIs.
 */
import type { z } from 'zod';
import { appEvents, appMethods } from './domains/app';
import { inspectorMethods } from './domains/inspector';
import { sandboxEvents, sandboxMethods } from './domains/sandbox';
import { vaultEvents, vaultMethods } from './domains/vault';
import { keysEvents, keysMethods } from './domains/keys';
import { jwtMethods } from './domains/jwt';
import { envEvents, envMethods } from './domains/env';
import { serviceEvents, serviceMethods } from './domains/service';
import { eventsEvents, eventsMethods } from './domains/events';
import { bankEvents, bankMethods } from './domains/bank';
import { walkthroughEvents, walkthroughMethods } from './domains/walkthrough';
import { conformanceEvents, conformanceMethods } from './domains/conformance';
import { tunnelEvents, tunnelMethods } from './domains/tunnel';
import { scenarioMethods } from './domains/scenario';
import { teamEvents, teamMethods } from './domains/team';
import { badArgument, ConsoleError, isErrorCode, toErrorData, type Envelope, type ErrorData } from './errors';
import { issuePath, issuesData } from './zod-issues';

export * from './errors';
export * from './zod-issues';
export * from './transport';
export * from './team-roles';
export * as schemas from './schemas/all';

/** Methods, keyed `<domain>.<action>`; the IPC channel is `app:<domain>.<action>`. One file per domain in ./domains. */
export const methods = {
  ...appMethods,
  ...inspectorMethods,
  ...sandboxMethods,
  ...vaultMethods,
  ...keysMethods,
  ...jwtMethods,
  ...envMethods,
  ...serviceMethods,
  ...eventsMethods,
  ...bankMethods,
  ...walkthroughMethods,
  ...conformanceMethods,
  ...tunnelMethods,
  ...scenarioMethods,
  ...teamMethods,
} as const;

/** Live events, keyed `<domain>.<past-tense>`; the IPC channel is `app:event.<domain>.<past-tense>`. */
export const events = {
  ...appEvents,
  ...sandboxEvents,
  ...vaultEvents,
  ...keysEvents,
  ...envEvents,
  ...serviceEvents,
  ...eventsEvents,
  ...bankEvents,
  ...walkthroughEvents,
  ...conformanceEvents,
  ...tunnelEvents,
  ...teamEvents,
} as const;

export type Methods = typeof methods;
export type MethodName = keyof Methods;
export type MethodInput<M extends MethodName> = z.input<Methods[M]['input']>;
export type MethodArgs<M extends MethodName> = z.output<Methods[M]['input']>;
export type MethodOutput<M extends MethodName> = z.output<Methods[M]['output']>;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

export const METHOD_NAMES = Object.keys(methods) as MethodName[];
export const EVENT_NAMES = Object.keys(events) as EventName[];

export const methodChannel = (m: MethodName): `app:${MethodName}` => `app:${m}`;
export const eventChannel = (e: EventName): `app:event.${EventName}` => `app:event.${e}`;
export const CHANNEL_PREFIX = 'app:';

export function isMethodName(value: unknown): value is MethodName {
  return typeof value === 'string' && Object.hasOwn(methods, value);
}
export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && Object.hasOwn(events, value);
}

/** What a core implements: one async function per method, taking validated arguments. */
export type Handlers = { [M in MethodName]: (args: MethodArgs<M>) => Promise<MethodOutput<M>> };

type Domain = MethodName extends `${infer D}.${string}` ? D : never;
type DomainApi<D extends string> = {
  [M in MethodName as M extends `${D}.${infer A}` ? A : never]: (
    input?: MethodInput<M>,
  ) => Promise<MethodOutput<M>>;
};

/** The typed facade the renderer uses: `api.inspector.inspect({...})`, `api.on('app.noticed', fn)`. */
export type ConsoleApi = { [D in Domain]: DomainApi<D> } & {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
};

export type Transport = {
  call(method: MethodName, input: unknown): Promise<Envelope<unknown>>;
  subscribe(event: EventName, listener: (payload: unknown) => void): () => void;
};

/**
 * Builds the named facade from the table over any transport (IPC in preload, HTTP in browser
 * mode). Failed calls reject with a ConsoleError carrying the code.
 */
export function buildFacade(transport: Transport): ConsoleApi {
  const api: Record<string, Record<string, unknown>> = {};
  for (const name of METHOD_NAMES) {
    const [domain, action] = name.split('.') as [string, string];
    api[domain] ??= {};
    api[domain][action] = async (input?: unknown) => {
      const envelope = await transport.call(name, input);
      if (envelope.ok) return envelope.value;
      throw ConsoleError.fromData(envelope.error);
    };
  }
  const on = (event: EventName, listener: (payload: unknown) => void) => {
    if (!isEventName(event)) throw badArgument(`unknown event "${String(event)}"`, 'event');
    return transport.subscribe(event, listener);
  };
  return Object.freeze({ ...api, on }) as unknown as ConsoleApi;
}

type AnyMethod = (input?: unknown) => Promise<unknown>;

/** A copy of the facade with every method wrapped (events pass through as they are). */
function mapFacade(api: ConsoleApi, wrap: (fn: AnyMethod) => AnyMethod): ConsoleApi {
  const out: Record<string, unknown> = { on: api.on };
  for (const [domain, fns] of Object.entries(api)) {
    if (domain === 'on') continue;
    const wrapped: Record<string, AnyMethod> = {};
    for (const [action, fn] of Object.entries(fns as Record<string, AnyMethod>)) wrapped[action] = wrap(fn);
    out[domain] = Object.freeze(wrapped);
  }
  return Object.freeze(out) as unknown as ConsoleApi;
}

/**
 * Electron's contextBridge keeps only an Error's message when a promise rejects across it, so
 * preload rejects with plain error data instead (`{code, message, details}`), which is copied
 * whole; the renderer revives it with `reviveBridgedErrors`.
 */
export function bridgeSafe(api: ConsoleApi): ConsoleApi {
  return mapFacade(
    api,
    (fn) => (input) => fn(input).catch((err: unknown) => Promise.reject(toErrorData(err))),
  );
}

/** The renderer's side of `bridgeSafe`: error data becomes a ConsoleError with its code again. */
export function reviveBridgedErrors(api: ConsoleApi): ConsoleApi {
  return mapFacade(
    api,
    (fn) => (input) =>
      fn(input).catch((err: unknown) => {
        if (err && typeof err === 'object' && isErrorCode((err as { code?: unknown }).code)) {
          throw ConsoleError.fromData(err as ErrorData);
        }
        throw err;
      }),
  );
}

/** Validates an argument with the method's schema; a failure names the field. */
export function parseArgs<M extends MethodName>(name: M, input: unknown): MethodArgs<M> {
  const result = methods[name].input.safeParse(input);
  if (result.success) return result.data as MethodArgs<M>;
  const issue = result.error.issues[0];
  // The whole argument is the field when the issue is about it (not an object, say).
  const where = (issue && issuePath(issue)) || 'argument';
  throw badArgument(`${name}: ${where}: ${issue?.message ?? 'invalid'}`, where, issuesData(result.error));
}
