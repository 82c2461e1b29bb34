import type { Handlers } from '../types';
import type { CoreDeps } from '../core-deps';
import type { conformanceMethods } from '../../contract/domains/conformance';

/** The conformance suite's method handlers (issue 7). */
export function conformanceHandlers(
  _deps: CoreDeps,
): Pick<Handlers, keyof typeof conformanceMethods> & { close?: () => Promise<void> } {
  return {};
}
