import type { InspectInput, InspectReport } from '../../contract/schemas/inspector';

export interface InspectDeps {
  fetch: typeof fetch;
  /** The clock, in milliseconds; tests pin it. */
  now?: () => number;
}

/** Placeholder until the inspector lands: see issue 2. */
export async function inspectToken(_input: InspectInput, _deps: InspectDeps): Promise<InspectReport> {
  throw new Error('not implemented');
}
