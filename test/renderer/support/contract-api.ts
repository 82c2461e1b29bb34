/**
 * A ConsoleApi for renderer tests, built from the contract (issue 25 item 5): the facade is the
 * contract's own `buildFacade`, over a transport that hands each call to a test's handler with
 * the contract checked on both sides.
 *
 * - What the page sends is validated by the method's input schema first, as every host does
 *   before the core sees it (`parseArgs`): a page sending what the core would refuse gets the
 *   same BAD_ARGUMENT, not a handler that accepts anything.
 * - What a handler answers is parsed by the method's output schema, and a live event's payload
 *   by the event's schema: a fake that drifts from the contract fails the call (a ConsoleError
 *   naming the method, the path and the problem) and is listed in `drift`.
 * - A handler that throws a ConsoleError is answered as the core's refusal (code, message,
 *   details); a method without a handler is UNKNOWN_METHOD, naming it.
 *
 * Handlers are plain (usually `vi.fn`) functions, so a test still asserts what was sent.
 */
import {
  ConsoleError,
  buildFacade,
  events as eventSchemas,
  methods,
  parseArgs,
  toErrorData,
  type ConsoleApi,
  type EventName,
  type EventPayload,
  type MethodName,
  type Transport,
} from '../../../electron/contract';

type Handler = (input: never) => unknown;

/** Handlers by domain and action, as the facade names them: `{ keys: { list: vi.fn(…) } }`. */
export type FakeHandlers = Record<string, Record<string, Handler | undefined> | undefined>;

export interface ContractApi {
  api: ConsoleApi;
  /** Plays a live event to every listener, after its payload passed the event's schema. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** Every drift found so far ("keys.list: 0.kid: expected string…"). */
  drift: string[];
}

/** The first issues of a failed parse as "path: message" lines. */
function issuesOf(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join('.') || '(value)'}: ${i.message}`)
    .join('; ');
}

/**
 * @example
 * const keys = { list: vi.fn(async () => [keyInfo('k1')]) };
 * const { api, emit } = contractApi({ keys });
 * renderWithClient(<KeysPage />, api);
 * expect(keys.list).toHaveBeenCalled();
 */
export function contractApi(handlers: FakeHandlers): ContractApi {
  const drift: string[] = [];
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();

  const call = async (method: MethodName, input: unknown): Promise<unknown> => {
    const [domain, action] = method.split('.') as [string, string];
    const handler = handlers[domain]?.[action];
    if (!handler)
      throw new ConsoleError('UNKNOWN_METHOD', `the fake ConsoleApi has no handler for ${method}`);
    parseArgs(method, input);
    const value = await (handler as (input: unknown) => unknown)(input);
    const checked = methods[method].output.safeParse(value);
    if (!checked.success) {
      const problem = `${method}: ${issuesOf(checked.error)}`;
      drift.push(problem);
      throw new ConsoleError('INTERNAL', `the fake ConsoleApi drifted from the contract: ${problem}`);
    }
    return value;
  };

  const transport: Transport = {
    async call(method, input) {
      try {
        return { ok: true, value: await call(method, input) };
      } catch (err) {
        return { ok: false, error: toErrorData(err) };
      }
    },
    subscribe(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      return () => set.delete(listener);
    },
  };

  const emit = <E extends EventName>(event: E, payload: EventPayload<E>) => {
    const checked = eventSchemas[event].safeParse(payload);
    if (!checked.success) {
      const problem = `event ${event}: ${issuesOf(checked.error)}`;
      drift.push(problem);
      throw new Error(`the fake ConsoleApi drifted from the contract: ${problem}`);
    }
    for (const listener of listeners.get(event) ?? []) listener(payload);
  };

  return { api: buildFacade(transport), emit, drift };
}
