/**
 * The road in from the real service (issue 14, DESIGN.md "Command line"): the public URL of the
 * bank endpoints and where it comes from, the tunnel that makes one, and the reachability probe.
 *
 * Which public URL is in force, first found wins:
 * 1. `serve --public-url` (this run; e.g. the TLS front on an ssh host),
 * 2. the running tunnel's URL,
 * 3. the active environment's `public_url`, when environments carry one,
 * 4. the profile's, saved on the Bank page (`<data-dir>/public-url.json`).
 *
 * Threat model: a tunnel makes the bank endpoints reachable by anyone who learns the URL; that is
 * its purpose, and docs/real-environment.md says what they can read. This module starts only
 * the clients in clients.ts, with the user's own credentials (ssh keys, cloudflared, ngrok's
 * authtoken are the clients' business, never read here), and stops them with the console.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { NotifyRoute } from '../../contract/schemas/bank';
import {
  PublicUrl,
  type ProbeResult,
  type TunnelInfo,
  type TunnelStatus,
} from '../../contract/schemas/tunnel';
import { ConsoleError } from '../../contract';
import type { EventHub } from '../event-hub';
import { writeFileAtomic } from '../common';
import { TunnelError } from './attempt';
import { parseTunnelTarget, planFor, type TunnelSpec } from './clients';
import { isLoopbackHost, localAddressFor, reachableAddresses } from './interfaces';
import { ProbeBook, runProbe } from './probe';
import { TunnelSupervisor, type Backoff } from './supervisor';

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

const FILE = 'public-url.json';

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

/**
 * What the bank gives the service for a bank URL: bank_auth_url (spec 4.2) and the notification
 * URLs under the bank's prefix (spec 4.3). One rule for the Bank page and the walkthrough.
 */
export function registerUrls(
  url: string,
  prefix: string,
): { bank_auth_url: string; notification_urls: string[] } {
  return {
    bank_auth_url: url,
    notification_urls: NotifyRoute.options.map((name) => `${url}${prefix}/${name}`),
  };
}

export function createTunnelService(options: TunnelServiceOptions): TunnelService {
  const book = new ProbeBook();
  const file = path.join(options.dataDir, FILE);
  let supervisor: TunnelSupervisor | null = null;
  let lastProbe: ProbeResult | null = null;
  let lastUpUrl: string | null = null;

  async function savedPublicUrl(): Promise<string | null> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new ConsoleError('STATE_DAMAGED', `${file} cannot be read: ${(err as Error).message}`);
    }
    try {
      const doc = JSON.parse(text) as { public_url?: unknown };
      return doc.public_url === null ? null : PublicUrl.parse(doc.public_url);
    } catch {
      throw new ConsoleError(
        'STATE_DAMAGED',
        `${file} does not hold {"public_url": "<http(s) URL>"}: fix or delete it, or save the public URL again on the Bank page`,
      );
    }
  }

  /** The public URL in force, given one snapshot of the tunnel (so a status never disagrees with itself). */
  async function publicUrl(
    tunnel: TunnelInfo | undefined = supervisor?.info(),
  ): Promise<{ url: string | null; source: TunnelStatus['public_url_source'] }> {
    if (options.flagPublicUrl) return { url: options.flagPublicUrl, source: 'flag' };
    if (tunnel?.state === 'up' && tunnel.url) return { url: tunnel.url, source: 'tunnel' };
    const env = await options.environmentPublicUrl?.().catch(() => null);
    if (env) return { url: env, source: 'environment' };
    const saved = await savedPublicUrl().catch(() => null);
    if (saved) return { url: saved, source: 'profile' };
    return { url: null, source: null };
  }

  async function status(): Promise<TunnelStatus> {
    const tunnel = supervisor?.info();
    const [{ url, source }, saved] = await Promise.all([publicUrl(tunnel), savedPublicUrl()]);
    const listener = options.listener();
    const prefix = await options.notifyPrefix().catch(() => '/api/svc/notify');
    return {
      public_url: url,
      public_url_source: source,
      register: url ? registerUrls(url, prefix) : null,
      saved_public_url: saved,
      tunnel: tunnel ?? null,
      listener: {
        url: listener?.url ?? null,
        tls: listener?.url.startsWith('https:') ?? false,
        host: listener?.host ?? null,
        reachable_on: listener ? reachableAddresses(listener.host) : [],
        loopback_only: listener ? isLoopbackHost(listener.host) : true,
      },
      probe: lastProbe,
    };
  }

  const announce = () =>
    void status()
      .then((s) => options.events.emit('tunnel.changed', s))
      .catch(() => undefined);

  async function probe(): Promise<ProbeResult> {
    // One snapshot of the tunnel: the URL probed and whether it is the tunnel's come from it.
    const tunnel = supervisor?.info();
    const { url, source } = await publicUrl(tunnel);
    lastProbe = withSshHint(await runProbe(url, book), source === 'tunnel' ? (tunnel ?? null) : null);
    options.events.emit('tunnel.probed', lastProbe);
    announce();
    return lastProbe;
  }

  function onChange(info: TunnelInfo): void {
    announce();
    if (info.state === 'up' || info.state === 'down') {
      options.record?.(info, info.url);
    }
    // A tunnel that comes up is tested from outside at once (issue 14).
    if (info.state === 'up' && info.url && info.url !== lastUpUrl) {
      lastUpUrl = info.url;
      void probe().catch(() => undefined);
    }
  }

  async function stopTunnel(): Promise<void> {
    const s = supervisor;
    supervisor = null;
    lastUpUrl = null;
    await s?.stop();
  }

  return {
    status,
    async setPublicUrl(url) {
      const value = url === null ? null : PublicUrl.parse(url);
      await writeFileAtomic(file, `${JSON.stringify({ public_url: value }, null, 2)}\n`);
      const s = await status();
      options.events.emit('tunnel.changed', s);
      return s;
    },
    async start(target) {
      let spec: TunnelSpec;
      try {
        spec = typeof target === 'string' ? parseTunnelTarget(target) : target;
      } catch (err) {
        throw new ConsoleError('BAD_ARGUMENT', `tunnel: ${(err as Error).message}`);
      }
      const listener = options.listener();
      if (!listener)
        throw new ConsoleError('CONFLICT', 'the bank endpoints are not listening: start them first');
      await stopTunnel();
      const env = options.env ?? process.env;
      const origin = {
        host: localAddressFor(listener.host),
        port: listener.port,
        tls: listener.url.startsWith('https:'),
      };
      // Built now, so a bad DETS_SSH_COMMAND is a usage error before any process starts.
      try {
        planFor(spec, origin, env);
      } catch (err) {
        throw new ConsoleError('BAD_ARGUMENT', (err as Error).message);
      }
      const s = new TunnelSupervisor({
        spec,
        plan: () => planFor(spec, origin, env),
        onChange: (info) => {
          if (supervisor === s) onChange(info);
        },
        env,
        ...(options.readyTimeoutMs ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
        ...(options.backoff ? { backoff: options.backoff } : {}),
      });
      supervisor = s;
      try {
        await s.start();
      } catch (err) {
        if (err instanceof TunnelError) {
          announce();
          throw err;
        }
        throw err;
      }
      return status();
    },
    async stop() {
      await stopTunnel();
      const s = await status();
      options.events.emit('tunnel.changed', s);
      return s;
    },
    probe,
    probeRoute: book.respond,
    async close() {
      await stopTunnel();
    },
  };
}
