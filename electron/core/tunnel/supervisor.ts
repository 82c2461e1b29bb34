/**
 * Keeps one tunnel up (issue 14): the first attempt must succeed (its failure is the caller's
 * to report: `serve` exits 1 with the client's one line); after that, a client that exits is a
 * drop, and the tunnel is re-made with backoff (1 s, 2 s, 4 s … capped), each drop and return
 * reported through `onChange`. stop() ends the client and every pending retry.
 */
import type { SshFailure, SshFailureCode, TunnelInfo } from '../../contract/schemas/tunnel';
import { startClient, TunnelError, type RunningClient } from './attempt';
import type { ClientPlan, TunnelSpec } from './clients';

/**
 * Failures that waiting does not cure (issue 26 item 4): a host key to confirm or refused, a
 * login refused. The tunnel stops retrying and stays `failed` until the engineer acts.
 */
const NEEDS_THE_ENGINEER: ReadonlySet<SshFailureCode> = new Set([
  'host_key_unknown',
  'host_key_changed',
  'auth_refused',
  'identity_unusable',
]);

export interface Backoff {
  firstMs: number;
  maxMs: number;
}

/** 1 s, 2 s, 4 s … 30 s. */
export const BACKOFF: Readonly<Backoff> = Object.freeze({ firstMs: 1_000, maxMs: 30_000 });

/** The delay before retry number `n` (1-based). */
export function backoffDelay(n: number, backoff: Backoff = BACKOFF): number {
  return Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.max(0, n - 1));
}

export interface SupervisorOptions {
  spec: TunnelSpec;
  /** Built for every attempt (DETS_SSH_COMMAND and the listener are read then). */
  plan: () => ClientPlan | Promise<ClientPlan>;
  onChange: (info: TunnelInfo) => void;
  env?: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
  backoff?: Backoff;
  now?: () => number;
}

export class TunnelSupervisor {
  private client: RunningClient | null = null;
  private state: TunnelInfo;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Aborts the attempt in progress, if any. */
  private readonly abort = new AbortController();
  private readonly now: () => number;

  constructor(private readonly options: SupervisorOptions) {
    this.now = options.now ?? Date.now;
    this.state = {
      client: options.spec.client,
      target: options.spec.target,
      state: 'starting',
      url: null,
      since: this.iso(),
      attempts: 0,
      last_error: null,
      next_retry_at: null,
      pid: null,
      failure: null,
    };
  }

  /**
   * Sets what is known to be wrong beyond ssh's own words: the probe's GatewayPorts finding on
   * a tunnel that is up, or a fixed remote port told apart from forwarding refused.
   */
  note(failure: SshFailure | null, lastError?: string): void {
    this.update({ failure, ...(lastError !== undefined ? { last_error: lastError } : {}) });
  }

  info(): TunnelInfo {
    return { ...this.state };
  }

  /** The first attempt: resolves when the client names its URL, rejects with a TunnelError if it cannot. */
  async start(): Promise<TunnelInfo> {
    this.update({ state: 'starting', attempts: 1 });
    try {
      await this.attempt();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const failure = err instanceof TunnelError ? err.failure : null;
      this.update({ state: 'failed', last_error: message, pid: null, url: null, failure });
      throw err instanceof TunnelError ? err : new TunnelError(message);
    }
    return this.info();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    await client?.stop();
    if (this.state.state !== 'stopped') {
      this.update({ state: 'stopped', url: null, pid: null, next_retry_at: null });
    }
  }

  private async attempt(): Promise<void> {
    const client = await startClient(await this.options.plan(), {
      ...(this.options.env ? { env: this.options.env } : {}),
      ...(this.options.readyTimeoutMs ? { readyTimeoutMs: this.options.readyTimeoutMs } : {}),
      signal: this.abort.signal,
    });
    if (this.stopped) {
      await client.stop();
      return;
    }
    this.client = client;
    this.update({
      state: 'up',
      url: client.url,
      pid: client.pid,
      attempts: 0,
      next_retry_at: null,
      failure: null,
    });
    void client.exited.then((reason) => {
      if (this.stopped || this.client !== client) return;
      this.client = null;
      this.update({ state: 'down', url: null, pid: null, last_error: reason, failure: client.failure() });
      this.scheduleRetry();
    });
  }

  private scheduleRetry(): void {
    if (this.stopped) return;
    const n = this.state.attempts + 1;
    const delay = backoffDelay(n, this.options.backoff ?? BACKOFF);
    this.update({ attempts: n, next_retry_at: new Date(this.now() + delay).toISOString() }, false);
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.stopped) return;
      this.attempt().catch((err: unknown) => {
        if (this.stopped) return;
        const failure = err instanceof TunnelError ? err.failure : null;
        const last_error = err instanceof Error ? err.message : String(err);
        if (failure && NEEDS_THE_ENGINEER.has(failure.code)) {
          this.update({ state: 'failed', last_error, failure, next_retry_at: null });
          return;
        }
        this.update({ state: 'down', last_error, failure }, false);
        this.scheduleRetry();
      });
    }, delay);
  }

  /** `since` moves when the state changes; `announce` false keeps quiet about retry bookkeeping. */
  private update(patch: Partial<TunnelInfo>, announce = true): void {
    const changed = patch.state !== undefined && patch.state !== this.state.state;
    this.state = { ...this.state, ...patch, ...(changed ? { since: this.iso() } : {}) };
    if (announce || changed) this.options.onChange(this.info());
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }
}
