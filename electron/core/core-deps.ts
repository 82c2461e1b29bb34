/**
 * What a feature module built on top of the core's services gets from the composition root
 * (console-core.ts): the walkthrough (issue 6) and conformance (issue 7) read and drive the same
 * services the pages do, never a second copy of them.
 */
import type { BankEndpoints } from './bank';
import type { EventHub } from './event-hub';
import type { Sandbox } from './sandbox';
import type { EventStore } from './store';
import type { CoreServices } from './console-core';
import type { TunnelService } from './tunnel';

export interface CoreDeps {
  dataDir: string;
  events: EventHub;
  fetch: typeof fetch;
  services: CoreServices;
  store: () => Promise<EventStore>;
  bank: () => Promise<BankEndpoints>;
  sandbox: () => Promise<Sandbox>;
  /** The listeners' base URLs as they are now (ui, bank, sandbox), absent when not started. */
  listeners: () => { ui?: string; bank?: string; sandbox?: string };
  /** The public URL in force and the probe from outside (issue 14): the walkthrough's road in. */
  tunnel: Pick<TunnelService, 'status' | 'probe'>;
}
