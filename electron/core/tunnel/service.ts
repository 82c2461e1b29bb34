/**
 * The road in from the real service (issue 14, DESIGN.md "Command line"): the public URL of the
 * bank endpoints and where it comes from, the tunnel that makes one, and the reachability probe.
 *
 * Which public URL is in force: public-url.ts. The tunnel's client and its restarts:
 * supervisor.ts. This class holds the one running tunnel and the last probe.
 *
 * Threat model: a tunnel makes the bank endpoints reachable by anyone who learns the URL; that is
 * its purpose, and docs/real-environment.md says what they can read. This module starts only
 * the clients in clients.ts, with the user's own credentials (ssh keys, cloudflared, ngrok's
 * authtoken are the clients' business, never read here), and stops them with the console.
 */
import { ConsoleError } from '../../contract';
import type { ProbeResult, TunnelInfo, TunnelStatus } from '../../contract/schemas/tunnel';
import type { EventHub } from '../event-hub';
import { TunnelError } from './attempt';
import { parseTunnelTarget, planFor, type TunnelSpec } from './clients';
import { isLoopbackHost, localAddressFor, reachableAddresses } from './interfaces';
import { ProbeBook, runProbe } from './probe';
import { publicUrlInForce, registerUrls, SavedPublicUrl, type PublicUrlSources } from './public-url';
import { TunnelSupervisor, type Backoff } from './supervisor';

export { registerUrls } from './public-url';

/** The bank endpoints listener, as the tunnel needs it. */
export interface BankListenerInfo {
  url: string;
  host: string;
  port: number;
}

export interface TunnelServiceOptions {
  dataDir: string;
  events: EventHub;
  /** `serve --public-url`, validated. */
  flagPublicUrl?: string | null;
  /** The running bank listener, null before it listens. */
  listener: () => BankListenerInfo | null;
  /** The bank's notification prefix (spec 4.3 /api/svc/notify by default). */
  notifyPrefix: () => Promise<string>;
  /** The active environment's public URL, when environments carry one. */
  environmentPublicUrl?: () => Promise<string | null>;
  /** Each drop and return, for the event store (an existing event kind). */
  record?: (info: TunnelInfo, publicUrl: string | null) => void;
  env?: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
  backoff?: Backoff;
}

export interface TunnelService {
  status(): Promise<TunnelStatus>;
  setPublicUrl(url: string | null): Promise<TunnelStatus>;
  /** Starts a tunnel; rejects with TunnelError (one line naming the client) if the first attempt fails. */
  start(target: string | TunnelSpec): Promise<TunnelStatus>;
  stop(): Promise<TunnelStatus>;
  probe(): Promise<ProbeResult>;
  /** The listener's probe route: true when it answered the request. */
  readonly probeRoute: ProbeBook['respond'];
  close(): Promise<void>;
}

/**
 * An unreachable probe of an ssh tunnel's own URL (`tunnel`: the tunnel whose URL was probed,
 * null when the URL came from elsewhere), with its commonest cause: sshd binds a remote forward
 * to the host's loopback unless its `GatewayPorts` is `yes` (or `clientspecified`), and `no` is
 * sshd's default, so the port answers on the host itself and nowhere else. Any other result is
 * returned as it is.
 *
 * @example
 * withSshHint(result, tunnel).detail; // "nothing answered at http://host:40123 (…). …GatewayPorts…"
 */
export function withSshHint(result: ProbeResult, tunnel: TunnelInfo | null): ProbeResult {
  if (result.outcome !== 'unreachable' || tunnel?.client !== 'ssh') return result;
  return {
    ...result,
    detail: `${result.detail}. Through an ssh tunnel this is most often the ssh host's sshd: it binds the forwarded port to its own loopback unless its sshd_config has \`GatewayPorts yes\` (or \`clientspecified\`), and \`no\` is the default; set it, reload sshd, and test again (docs/real-environment.md)`,
  };
}

/** The listener part of a status: where the bank endpoints listen and who can reach them. */
function listenerStatus(listener: BankListenerInfo | null): TunnelStatus['listener'] {
  return {
    url: listener?.url ?? null,
    tls: listener?.url.startsWith('https:') ?? false,
    host: listener?.host ?? null,
    reachable_on: listener ? reachableAddresses(listener.host) : [],
    loopback_only: listener ? isLoopbackHost(listener.host) : true,
  };
}

/**
 * The road in of one core: at most one tunnel, its public URL and the last probe from outside.
 * A tunnel that comes up is probed at once (issue 14); each drop and return is recorded.
 */
class Tunnels implements TunnelService {
  readonly #book = new ProbeBook();
  readonly #sources: PublicUrlSources;
  #supervisor: TunnelSupervisor | null = null;
  #lastProbe: ProbeResult | null = null;
  #lastUpUrl: string | null = null;
  readonly probeRoute: ProbeBook['respond'];

  constructor(private readonly options: TunnelServiceOptions) {
    this.#sources = {
      flag: options.flagPublicUrl,
      environment: options.environmentPublicUrl,
      saved: new SavedPublicUrl(options.dataDir),
    };
    this.probeRoute = this.#book.respond;
  }

  async status(): Promise<TunnelStatus> {
    const tunnel = this.#supervisor?.info();
    const [{ url, source }, saved] = await Promise.all([
      publicUrlInForce(this.#sources, tunnel),
      this.#sources.saved.read(),
    ]);
    const prefix = await this.options.notifyPrefix().catch(() => '/api/svc/notify');
    return {
      public_url: url,
      public_url_source: source,
      register: url ? registerUrls(url, prefix) : null,
      saved_public_url: saved,
      tunnel: tunnel ?? null,
      listener: listenerStatus(this.options.listener()),
      probe: this.#lastProbe,
    };
  }

  async setPublicUrl(url: string | null): Promise<TunnelStatus> {
    await this.#sources.saved.write(url);
    return this.#changed();
  }

  async start(target: string | TunnelSpec): Promise<TunnelStatus> {
    let spec: TunnelSpec;
    try {
      spec = typeof target === 'string' ? parseTunnelTarget(target) : target;
    } catch (err) {
      throw new ConsoleError('BAD_ARGUMENT', `tunnel: ${(err as Error).message}`, { field: 'target' });
    }
    const listener = this.options.listener();
    if (!listener)
      throw new ConsoleError('CONFLICT', 'the bank endpoints are not listening: start them first');
    await this.#stopTunnel();
    const env = this.options.env ?? process.env;
    const origin = {
      host: localAddressFor(listener.host),
      port: listener.port,
      tls: listener.url.startsWith('https:'),
    };
    // Built now, so a bad DETS_SSH_COMMAND is a usage error before any process starts.
    try {
      planFor(spec, origin, env);
    } catch (err) {
      throw new ConsoleError('BAD_ARGUMENT', (err as Error).message, { field: 'target' });
    }
    const s = new TunnelSupervisor({
      spec,
      plan: () => planFor(spec, origin, env),
      onChange: (info) => {
        if (this.#supervisor === s) this.#onChange(info);
      },
      env,
      ...(this.options.readyTimeoutMs ? { readyTimeoutMs: this.options.readyTimeoutMs } : {}),
      ...(this.options.backoff ? { backoff: this.options.backoff } : {}),
    });
    this.#supervisor = s;
    try {
      await s.start();
    } catch (err) {
      if (err instanceof TunnelError) this.#announce();
      throw err;
    }
    return this.status();
  }

  async stop(): Promise<TunnelStatus> {
    await this.#stopTunnel();
    return this.#changed();
  }

  async probe(): Promise<ProbeResult> {
    // One snapshot of the tunnel: the URL probed and whether it is the tunnel's come from it.
    const tunnel = this.#supervisor?.info();
    const { url, source } = await publicUrlInForce(this.#sources, tunnel);
    this.#lastProbe = withSshHint(
      await runProbe(url, this.#book),
      source === 'tunnel' ? (tunnel ?? null) : null,
    );
    this.options.events.emit('tunnel.probed', this.#lastProbe);
    this.#announce();
    return this.#lastProbe;
  }

  async close(): Promise<void> {
    await this.#stopTunnel();
  }

  /** The status after a change the caller waits for, emitted as `tunnel.changed`. */
  async #changed(): Promise<TunnelStatus> {
    const s = await this.status();
    this.options.events.emit('tunnel.changed', s);
    return s;
  }

  /** The status after a change nobody waits for. */
  #announce(): void {
    void this.status()
      .then((s) => this.options.events.emit('tunnel.changed', s))
      .catch(() => undefined);
  }

  #onChange(info: TunnelInfo): void {
    this.#announce();
    if (info.state === 'up' || info.state === 'down') {
      this.options.record?.(info, info.url);
    }
    // A tunnel that comes up is tested from outside at once (issue 14).
    if (info.state === 'up' && info.url && info.url !== this.#lastUpUrl) {
      this.#lastUpUrl = info.url;
      void this.probe().catch(() => undefined);
    }
  }

  async #stopTunnel(): Promise<void> {
    const s = this.#supervisor;
    this.#supervisor = null;
    this.#lastUpUrl = null;
    await s?.stop();
  }
}

/**
 * The tunnel service of one core.
 *
 * @example
 * const tunnel = createTunnelService({ dataDir, events, listener: () => bankWhere, notifyPrefix });
 * await tunnel.start('cloudflared'); // TunnelStatus with tunnel.state 'up' and its URL in force
 */
export function createTunnelService(options: TunnelServiceOptions): TunnelService {
  return new Tunnels(options);
}
