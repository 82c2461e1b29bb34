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
import {
  NO_SSH_SETTINGS,
  type ProbeResult,
  type SshTunnelSettings,
  type SshTunnelView,
  type TunnelInfo,
  type TunnelStatus,
} from '../../contract/schemas/tunnel';
import type { EventHub } from '../event-hub';
import { startClient, TunnelError } from './attempt';
import {
  parseTunnelTarget,
  planFor,
  redact,
  type SshRun,
  type TunnelOrigin,
  type TunnelSpec,
} from './clients';
import { HostKeyGate } from './host-key-gate';
import { pinnedKnownHostsPath } from './known-hosts';
import { gatewayPortsFailure } from './ssh-failures';
import { checkSshSettings } from './ssh-settings';
import { isLoopbackHost, localAddressFor, reachableAddresses } from './interfaces';
import { ProbeBook, runProbe } from './probe';
import { publicUrlInForce, registerUrls, SavedPublicUrl, type PublicUrlSources } from './public-url';
import { TunnelSupervisor, type Backoff } from './supervisor';
import { SPEC_NOTIFY_PREFIX } from '../../contract/schemas/service-paths';

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
  /**
   * The ssh tunnel's settings of an environment (default: the active one), read at every attempt
   * so a change applies without a restart (issue 26 item 4). Absent: ssh's own defaults.
   */
  sshSettings?: (environmentId?: string) => Promise<{ environment_id: string; settings: SshTunnelSettings }>;
  /** Keeps an environment's ssh settings (in the environment's settings). */
  saveSshSettings?: (environmentId: string | undefined, settings: SshTunnelSettings) => Promise<void>;
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
  /** Checks and keeps an environment's ssh settings (BAD_ARGUMENT naming the field). */
  saveSsh(environmentId: string | undefined, settings: SshTunnelSettings): Promise<TunnelStatus>;
  /** Pins the host key on offer with that fingerprint, then starts the ssh tunnel again. */
  trustHostKey(host: string, fingerprint: string): Promise<TunnelStatus>;
  /** Removes a host's pinned keys. */
  unpinHostKey(host: string): Promise<TunnelStatus>;
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
    detail: `${result.detail}. Through an ssh tunnel this is most often GatewayPorts: ${gatewayPortsFailure(result.url ?? '').action}`,
  };
}

/**
 * DETS_SSH_COMMAND as the Bank page shows it: its words, with what could be a secret masked
 * (a `-p` value, as sshpass takes a password; `password=…`-like words). The page never needs a
 * secret to tell the user that the variable is set and which options win.
 */
export function shownCommand(value: string | undefined): string | null {
  const text = value?.trim();
  if (!text) return null;
  return redact(text.replace(/(^|\s)(-p|--password)(\s+|=)\S+/g, '$1$2$3[redacted]'));
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
  /** The last tunnel asked for, started again once a host key is confirmed. */
  #lastSpec: TunnelSpec | null = null;
  /** A first attempt runs: its failure is handled by start(), not by #onChange. */
  #starting = false;
  readonly #hostKeys: HostKeyGate;
  readonly probeRoute: ProbeBook['respond'];

  constructor(private readonly options: TunnelServiceOptions) {
    this.#sources = {
      flag: options.flagPublicUrl,
      environment: options.environmentPublicUrl,
      saved: new SavedPublicUrl(options.dataDir),
    };
    this.probeRoute = this.#book.respond;
    this.#hostKeys = new HostKeyGate(pinnedKnownHostsPath(options.dataDir));
  }

  /** The environment's ssh settings and the pinned file, for one attempt. */
  async #sshRun(): Promise<SshRun> {
    const { settings } = (await this.options.sshSettings?.()) ?? { settings: NO_SSH_SETTINGS };
    await this.#hostKeys.pinned.ensure();
    return { settings, pinnedFile: this.#hostKeys.pinned.file };
  }

  /** The ssh side of the status; absent when the environments cannot be read. */
  async #sshView(): Promise<SshTunnelView | undefined> {
    try {
      const { environment_id, settings } = (await this.options.sshSettings?.()) ?? {
        environment_id: 'sandbox',
        settings: NO_SSH_SETTINGS,
      };
      return {
        environment_id,
        settings,
        command_override: shownCommand((this.options.env ?? process.env).DETS_SSH_COMMAND),
        known_hosts_path: this.#hostKeys.pinned.file,
        pinned: await this.#hostKeys.pinned.list(),
      };
    } catch {
      return undefined;
    }
  }

  async status(): Promise<TunnelStatus> {
    const tunnel = this.#supervisor?.info();
    const [{ url, source }, saved] = await Promise.all([
      publicUrlInForce(this.#sources, tunnel),
      this.#sources.saved.read(),
    ]);
    const prefix = await this.options.notifyPrefix().catch(() => SPEC_NOTIFY_PREFIX);
    const ssh = await this.#sshView();
    return {
      public_url: url,
      public_url_source: source,
      register: url ? registerUrls(url, prefix) : null,
      saved_public_url: saved,
      tunnel: tunnel ?? null,
      listener: listenerStatus(this.options.listener()),
      probe: this.#lastProbe,
      host_key: this.#hostKeys.offer(),
      ...(ssh ? { ssh } : {}),
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
    this.#lastSpec = spec;
    this.#hostKeys.clear();
    const s = new TunnelSupervisor({
      spec,
      // The environment's ssh settings are read at every attempt: a change applies at the next.
      plan: async () => planFor(spec, origin, env, spec.client === 'ssh' ? await this.#sshRun() : undefined),
      onChange: (info) => {
        if (this.#supervisor === s) this.#onChange(info, spec);
      },
      env,
      ...(this.options.readyTimeoutMs ? { readyTimeoutMs: this.options.readyTimeoutMs } : {}),
      ...(this.options.backoff ? { backoff: this.options.backoff } : {}),
    });
    this.#supervisor = s;
    this.#starting = true;
    try {
      await s.start();
    } catch (err) {
      if (!(err instanceof TunnelError)) throw err;
      throw await this.#afterStartFailure(s, spec, origin, env, err);
    } finally {
      this.#starting = false;
    }
    return this.status();
  }

  /**
   * A first attempt that failed: a host key is fetched and offered (host-key-gate.ts); a fixed
   * remote port refused is tried once as `-R 0:` to tell "in use" (0 works) from "forwarding
   * not allowed" (0 fails too), since sshd gives no reason (ssh-failures.ts).
   */
  async #afterStartFailure(
    s: TunnelSupervisor,
    spec: TunnelSpec,
    origin: TunnelOrigin,
    env: NodeJS.ProcessEnv,
    err: TunnelError,
  ): Promise<TunnelError> {
    let out = err;
    if (spec.client === 'ssh') {
      const run = await this.#sshRun().catch(() => null);
      await this.#hostKeys.afterFailure(spec, err.failure, run?.settings.options ?? [], env);
      // The CLI has no page to show the key on: the one line names what the host showed.
      const offer = this.#hostKeys.offer();
      if (offer) {
        const shown = offer.keys.map((k) => `${k.type} ${k.fingerprint}`).join(', ');
        out = new TunnelError(`${err.message} (the host shows ${shown})`, err.failure);
      }
      if (err.failure?.code === 'remote_port_in_use' && run) {
        const any = { ...run, settings: { ...run.settings, remote_port: null } };
        const check = await startClient(planFor(spec, origin, env, any), {
          env,
          readyTimeoutMs: this.options.readyTimeoutMs ?? 15_000,
        }).then(
          async (c) => {
            await c.stop();
            return null;
          },
          (e: unknown) => (e instanceof TunnelError ? e : null),
        );
        if (check?.failure?.code === 'forward_refused') {
          out = new TunnelError(check.message, check.failure);
          s.note(check.failure, check.message);
        }
      }
    }
    this.#announce();
    return out;
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
    // An ssh tunnel up whose URL does not answer from here: GatewayPorts (ssh-failures.ts).
    const s = this.#supervisor;
    if (s && source === 'tunnel' && tunnel?.client === 'ssh' && s.info().state === 'up' && url) {
      const outcome = this.#lastProbe.outcome;
      if (outcome === 'unreachable') s.note(gatewayPortsFailure(url));
      else if (outcome === 'reachable' && s.info().failure?.code === 'gateway_ports') s.note(null);
    }
    this.options.events.emit('tunnel.probed', this.#lastProbe);
    this.#announce();
    return this.#lastProbe;
  }

  async close(): Promise<void> {
    await this.#stopTunnel();
  }

  async saveSsh(environmentId: string | undefined, settings: SshTunnelSettings): Promise<TunnelStatus> {
    if (!this.options.saveSshSettings) {
      throw new ConsoleError('CONFLICT', 'this console keeps no environments: use DETS_SSH_COMMAND');
    }
    await checkSshSettings(settings);
    await this.options.saveSshSettings(environmentId, settings).catch((err: unknown) => {
      // The environments store names its own `id` field; this method's is environment_id.
      if (err instanceof ConsoleError && err.code === 'NOT_FOUND') {
        throw new ConsoleError('NOT_FOUND', err.message, { field: 'environment_id' });
      }
      throw err;
    });
    return this.#changed();
  }

  async trustHostKey(host: string, fingerprint: string): Promise<TunnelStatus> {
    await this.#hostKeys.trust(host, fingerprint);
    const spec = this.#lastSpec;
    // The tunnel that stopped on this key comes up now, without a restart of the console.
    if (spec?.client === 'ssh' && this.#supervisor?.info().state !== 'up') return this.start(spec);
    return this.#changed();
  }

  async unpinHostKey(host: string): Promise<TunnelStatus> {
    await this.#hostKeys.unpin(host);
    return this.#changed();
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

  #onChange(info: TunnelInfo, spec: TunnelSpec): void {
    this.#announce();
    // A host key that changed while the tunnel was being re-made: offered as at a first start.
    const code = info.failure?.code;
    if (!this.#starting && info.state === 'failed' && spec.client === 'ssh' && code?.startsWith('host_key')) {
      void this.#sshRun()
        .then((run) =>
          this.#hostKeys.afterFailure(
            spec,
            info.failure ?? null,
            run.settings.options,
            this.options.env ?? process.env,
          ),
        )
        .then(() => this.#announce())
        .catch(() => undefined);
    }
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
