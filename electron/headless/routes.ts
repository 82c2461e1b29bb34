/**
 * The headless host's call routes, generated from the contract table (STYLE.md 3): one
 * `POST /api/call/<method>` per method in METHOD_NAMES, no list of its own, so a method cannot
 * exist in the contract without a route or the other way round.
 */
import { METHOD_NAMES, TRANSPORT, type MethodName } from '../contract';

/** Every method the headless host routes, in contract order. */
export const ROUTED_METHODS: readonly MethodName[] = Object.freeze([...METHOD_NAMES]);

const byPath = new Map<string, MethodName>(ROUTED_METHODS.map((m) => [callPath(m), m]));

/** `/api/call/<method>`, the path a method is called at. */
export function callPath(method: MethodName): string {
  return `${TRANSPORT.callPathPrefix}${method}`;
}

/** The method a call path names, or undefined when the contract has no such method. */
export function methodForPath(path: string): MethodName | undefined {
  return byPath.get(path);
}

export function isCallPath(path: string): boolean {
  return path.startsWith(TRANSPORT.callPathPrefix);
}
