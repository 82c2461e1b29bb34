import type { SshTunnelSettings } from '../../contract/schemas/tunnel';
import type { z } from 'zod';
import type {
  AuthenticateInput,
  AuthenticateResult,
  Environment,
  Environments,
  Exchange,
  JwkOperationInput,
  RotateInput,
  Rotation,
  SaveEnvironmentInput,
  SignJwtInput,
  SignedJwt,
} from '../../contract/schemas/service';
import type { EventHub } from '../event-hub';
import type { KeyStore } from '../keys';

/** Where the console talks to the service: the built-in sandbox (id "sandbox") and real ones. */
export interface EnvironmentStore {
  list(): Promise<z.output<typeof Environments>>;
  /** The active environment when `id` is absent; NOT_FOUND otherwise. */
  get(id?: string): Promise<Environment>;
  save(input: z.output<typeof SaveEnvironmentInput>): Promise<Environment>;
  remove(id: string): Promise<void>;
  activate(id: string): Promise<z.output<typeof Environments>>;
  /** The ssh tunnel's settings of `id` (default: the active environment; issue 26 item 4). */
  sshTunnel(id?: string): Promise<{ environment_id: string; settings: SshTunnelSettings }>;
  /** Keeps them (already checked by the tunnel); NOT_FOUND for an unknown id. */
  saveSshTunnel(id: string | undefined, settings: SshTunnelSettings): Promise<void>;
}

export interface Composer {
  sign(input: z.output<typeof SignJwtInput>): Promise<SignedJwt>;
}

/** The service client for the active environment; every exchange is recorded. */
export interface ServiceClient {
  authenticate(input: z.output<typeof AuthenticateInput>): Promise<z.output<typeof AuthenticateResult>>;
  registerJwk(input: z.output<typeof JwkOperationInput>): Promise<Exchange>;
  updateJwk(input: z.output<typeof JwkOperationInput>): Promise<Exchange>;
  listJwks(): Promise<Exchange>;
  fetchJwks(): Promise<Exchange>;
  exchanges(limit?: number): Promise<Exchange[]>;
  rotate(input: z.output<typeof RotateInput>): Promise<Rotation>;
}

export interface ServiceOptions {
  dataDir: string;
  events: EventHub;
  keys: KeyStore;
  environments: EnvironmentStore;
  composer: Composer;
  fetch: typeof fetch;
  now?: () => number;
  /** Give up on a request to the service after this long; default 10 s. */
  timeoutMs?: number;
  /** Exchanges kept in the history; default 1000 (the most recent). */
  historyCap?: number;
}
