import type { Handlers } from '../types';
import type { CoreDeps } from '../core-deps';
import type { walkthroughMethods } from '../../contract/domains/walkthrough';

/** The walkthrough's method handlers (issue 6). */
export function walkthroughHandlers(
  _deps: CoreDeps,
): Pick<Handlers, keyof typeof walkthroughMethods> & { close?: () => Promise<void> } {
  return {};
}
