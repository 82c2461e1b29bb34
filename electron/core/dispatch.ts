import {
  isMethodName,
  parseArgs,
  toErrorData,
  ConsoleError,
  type Envelope,
  type Handlers,
  type MethodName,
} from '../contract';

/**
 * The one place a call that crossed a process boundary enters the core: the method must be in
 * the contract, its argument must pass the method's schema, and whatever happens comes back as
 * an envelope. IPC handlers and headless routes are thin wrappers around this.
 */
export async function dispatch(
  handlers: Handlers,
  method: unknown,
  input: unknown,
): Promise<Envelope<unknown>> {
  try {
    if (!isMethodName(method)) throw new ConsoleError('UNKNOWN_METHOD', `unknown method "${String(method)}"`);
    const args = parseArgs(method, input);
    const handler = handlers[method] as (a: unknown) => Promise<unknown>;
    return { ok: true, value: await handler(args) };
  } catch (err) {
    return { ok: false, error: toErrorData(err) };
  }
}

export type { MethodName };
