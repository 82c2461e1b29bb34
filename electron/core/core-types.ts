/**
 * The core's own shapes, in one place below the composition root (issue 25 item 3): what a host
 * gets (ConsoleCore, built from CoreOptions by console-core.ts), the services it builds on first
 * use (CoreServices), and what a feature built on top of those services reaches (CoreDeps: the
 * walkthrough, issue 6, and conformance, issue 7, read and drive the same services the pages
 * do, never a second copy of them). Feature modules import this file, never console-core.ts, so
 * the composition root can import them without a cycle.
 */
import type { Envelope, Handlers } from '../contract';
import type { Notice } from '../contract/schemas/app';
import type { RouteInfo } from '../contract/schemas/team';
import type { BankEndpoints, BankListener, CallbackRelay, SignedPairs } from './bank';
import type { Downloads } from './downloads';
import type { EventHub } from './event-hub';
import type { TlsMaterial } from './http';
import type { KeyStore } from './keys';
import type { Sandbox, SandboxListener } from './sandbox';
import type { Composer, EnvironmentStore, ServiceClient } from './service';
import type { ClaimRole, EventStore, EventStoreOptions } from './store';
import type { TunnelService } from './tunnel';
import type { KeychainBackend, Vault } from './vault';

/** Which host runs the core. */
export type HostKind = 'desktop' | 'browser' | 'cli';

export interface CoreOptions {
  dataDir: string;
  host: HostKind;
  /** Used for every outgoing HTTP request (JWKS, service); tests and hosts may inject one. */
  fetch?: typeof fetch;
  /** DETS_VAULT_PASSPHRASE and the like; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Stand-in keychain for tests that are not about the keychain; the real one otherwise. */
  keychain?: KeychainBackend;
  /** --service-jwks-url: where the bank endpoints fetch the service's keys (else the active environment's). */
  serviceJwksUrl?: string;
  /** --public-url: the URL the service reaches the bank endpoints at, for this run (issue 14). */
  publicUrl?: string;
  /** --time-scale F (0 < F ≤ 1): the sandbox's delivery ladder waits and timeouts × F (issue 27). */
  timeScale?: number;
  /**
   * Bench/test hook only, never set by a host: opens the event store in place of
   * openEventStore (the bench's "recording off" bank, test/bench/servers/bank.ts, passes a store
   * whose append stores nothing, to measure what recording costs /user_auth; issue 12).
   */
  eventStore?: (options: EventStoreOptions) => Promise<EventStore>;
  /**
   * The long-running owner this core is (DESIGN.md "Storage": one owner per profile): it claims
   * the profile before anything opens the database. The desktop app is one by its host; `serve`
   * and `sandbox` say so. One-shot CLI commands leave it unset and claim nothing.
   */
  owner?: Exclude<ClaimRole, 'store recover'>;
  /** Where start-up says what it waits for and what a recovery did (stderr by default). */
  log?: (line: string) => void;
  /** Ends a wait for a running `store recover` (the host is being stopped). */
  stopWaiting?: AbortSignal;
  /** serve --team: the hub's routes to attached laptops (core/team RelayHub; issue 30 item 3). */
  relay?: TeamRelay;
}

/** A team hub's routes, as the core uses them: the bank relays through it, team.* lists and removes. */
export interface TeamRelay extends CallbackRelay {
  list(): RouteInfo[];
  remove(id: string): { removed: string };
}

export interface ListenerUrls {
  bank?: string;
  sandbox?: string;
}

/** Core services, built on first use (a CLI command that needs no key never touches the vault). */
export interface CoreServices {
  vault(): Vault;
  keys(): KeyStore;
  environments(): EnvironmentStore;
  pairs(): SignedPairs;
  composer(): Composer;
  service(): ServiceClient;
}

/** What a host holds: the contract's handlers, the live events and the listeners it starts. */
export interface ConsoleCore {
  readonly handlers: Handlers;
  readonly events: EventHub;
  readonly options: CoreOptions;
  dispatch(method: unknown, input: unknown): Promise<Envelope<unknown>>;
  /** Hosts report the listeners they started, for `app.info`. */
  setListeners(urls: ListenerUrls): void;
  /** The sandbox, loaded on first use (a damaged state file rejects with STATE_DAMAGED). */
  sandbox(): Promise<Sandbox>;
  /** Starts the sandbox listener and records its URL. */
  listenSandbox(options: { host: string; port: number }): Promise<SandboxListener>;
  /** Core services, built on first use (a CLI command that needs no key never touches the vault). */
  readonly services: CoreServices;
  /** The event store, opened on first use. */
  store(): Promise<EventStore>;
  /** The bank endpoints, built on first use. */
  bank(): Promise<BankEndpoints>;
  /** One-time downloads the hosts serve (customers with their secret keys). */
  readonly downloads: Downloads;
  /** Starts the bank endpoints listener (HTTPS given `tls`) and records its URL. */
  listenBank(options: { host: string; port: number; tls?: TlsMaterial }): Promise<BankListener>;
  /** The public URL, the tunnel and the reachability probe (issue 14). */
  readonly tunnel: TunnelService;
  /**
   * Keeps a notice for the page until its first call (dispatch), when it is emitted as
   * app.noticed: what happened before any page listened (a listener's fallback port, the outcome
   * of a recovery asked for from the header) is delivered once, not lost. The app shell subscribes
   * to app.noticed in the same effect pass that makes its first call, so it is listening by then.
   */
  holdNotice(notice: Notice): void;
  close(): Promise<void>;
}

/**
 * What a feature module built on top of the core's services gets from the composition root:
 * the same events, services, store, bank and sandbox a host holds (a part of ConsoleCore, so the
 * two cannot drift apart), plus what only the root knows.
 */
export interface CoreDeps extends Pick<ConsoleCore, 'events' | 'services' | 'store' | 'bank' | 'sandbox'> {
  dataDir: string;
  fetch: typeof fetch;
  /** The listeners' base URLs as they are now (ui, bank, sandbox), absent when not started. */
  listeners: () => { ui?: string; bank?: string; sandbox?: string };
  /** The public URL in force and the probe from outside (issue 14): the walkthrough's road in. */
  tunnel: Pick<TunnelService, 'status' | 'probe'>;
}
