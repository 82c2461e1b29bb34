/**
 * The three tunnel clients `serve --tunnel` runs (DESIGN.md "Command line", issue 14): what
 * command line each one gets, and how its output is read. Each is a program the user installed
 * and trusts; the console never relays traffic itself.
 *
 * - ssh: `ssh -N -R 0:<origin> … [USER@]HOST` asks the user's host for a free remote port and
 *   prints `Allocated port N for remote forward to <origin>` on stderr; the public URL is
 *   `http(s)://HOST:N`. DETS_SSH_COMMAND replaces the `ssh` word (as GIT_SSH_COMMAND does).
 * - cloudflared: a quick tunnel (`cloudflared tunnel --no-autoupdate --url <origin>`) prints its
 *   `https://<words>.trycloudflare.com` URL in a boxed banner on stderr ("Your quick Tunnel has
 *   been created! Visit it at …"); failures are `ERR …` lines such as
 *   `ERR failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": …`.
 * - ngrok: `ngrok http <origin> --log stdout --log-format json` writes one JSON object per line;
 *   `{"msg":"started tunnel","url":"https://…"}` carries the URL, `{"msg":"starting web
 *   service","addr":"127.0.0.1:4040"}` names its local API (`/api/tunnels`, read when no URL
 *   line comes), and `{"lvl":"eror","err":"authentication failed: …ERR_NGROK_4018…"}` a failure.
 *
 * Threat model: the clients' output is not ours and may carry secrets (ngrok echoes a bad
 * authtoken); every line kept for a message goes through {@link redact}, and only one line of
 * it is ever shown or stored.
 */
import { TunnelTarget } from '../../contract/schemas/tunnel';
import { firstIssueMessage } from '../common';
import type { ClientPlan, SshRun, TunnelOrigin, TunnelSpec } from './plan';
import { sshPlan } from './ssh-plan';

export type { ClientPlan, LineVerdict, SshRun, TunnelOrigin, TunnelSpec } from './plan';

/**
 * Parses `--tunnel` (and the Bank page's choice).
 *
 * @example
 * parseTunnelTarget('ssh:deploy@tunnel.example.com:2222');
 * // { client: 'ssh', user: 'deploy', host: 'tunnel.example.com', port: 2222, … }
 */
export function parseTunnelTarget(text: string): TunnelSpec {
  const checked = TunnelTarget.safeParse(text);
  if (!checked.success) {
    throw new Error(`"${text}" ${firstIssueMessage(checked.error, 'is not a tunnel')}`);
  }
  const value = checked.data;
  if (value === 'cloudflared') return { client: 'cloudflared', target: 'cloudflared' };
  if (value === 'ngrok') return { client: 'ngrok', target: 'ngrok' };
  const rest = value.slice('ssh:'.length);
  const at = rest.lastIndexOf('@');
  const user = at >= 0 ? rest.slice(0, at) : null;
  const hostPort = at >= 0 ? rest.slice(at + 1) : rest;
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostPort);
  const host = match?.[1] ?? hostPort;
  const port = match?.[2] === undefined ? null : Number(match[2]);
  if (port !== null && (port < 1 || port > 65535)) {
    throw new Error(`"${text}": the ssh port must be 1-65535`);
  }
  return { client: 'ssh', target: value, user, host, port };
}

/** Masks what looks like a token in a client's words, and keeps one line. */
export function redact(text: string): string {
  return text
    .replace(/\b(authtoken|token|password|secret)(\s*[:=]\s*)\S+/gi, '$1$2[redacted]')
    .replace(/\s+/g, ' ')
    .trim();
}

export function originUrl(origin: TunnelOrigin): string {
  const host = origin.host.includes(':') ? `[${origin.host}]` : origin.host;
  return `${origin.tls ? 'https' : 'http'}://${host}:${origin.port}`;
}

/**
 * The command line for `spec`, leading to `origin`. `env` supplies DETS_SSH_COMMAND; `ssh` the
 * environment's ssh settings and the pinned known-hosts file (absent: ssh's own defaults).
 */
export function planFor(
  spec: TunnelSpec,
  origin: TunnelOrigin,
  env: NodeJS.ProcessEnv,
  ssh?: SshRun,
): ClientPlan {
  switch (spec.client) {
    case 'ssh':
      return sshPlan(spec, origin, env, ssh);
    case 'cloudflared':
      return cloudflaredPlan(origin);
    case 'ngrok':
      return ngrokPlan(origin);
  }
}

/** The quick tunnel's own name, and not api.trycloudflare.com, which a failed request names. */
const TRYCLOUDFLARE = /https:\/\/(?!api\.)[a-z0-9-]+\.trycloudflare\.com/;
/** cloudflared's log lines: `<time> INF|WRN|ERR <message>`. */
const CLOUDFLARED_LEVEL = /^\S+\s+(INF|WRN|ERR|DBG|FTL)\s+(.*)$/;

/** The line that opens the quick tunnel's banner; the URL is in the box line after it. */
const BANNER = /Your quick Tunnel has been created!/;
const BOX_URL = /\|\s+(https?:\/\/[^\s|]+)\s+\|/;

function cloudflaredPlan(origin: TunnelOrigin): ClientPlan {
  let bannerSeen = false;
  return {
    client: 'cloudflared',
    name: 'cloudflared',
    command: 'cloudflared',
    args: [
      'tunnel',
      '--no-autoupdate',
      '--url',
      originUrl(origin),
      // A self-signed --tls-cert is the common case for a listener behind a tunnel.
      ...(origin.tls ? ['--no-tls-verify'] : []),
    ],
    notFoundHint:
      'install cloudflared (https://developers.cloudflare.com/cloudflare-one/connections/connect-networks/downloads/)',
    read(line) {
      const url = TRYCLOUDFLARE.exec(line);
      if (url) return { kind: 'url', url: url[0] };
      // The banner's box line, whatever the host (a cloudflared pointed at another edge).
      if (BANNER.test(line)) bannerSeen = true;
      else if (bannerSeen) {
        const boxed = BOX_URL.exec(line);
        if (boxed?.[1]) return { kind: 'url', url: boxed[1] };
      }
      const level = CLOUDFLARED_LEVEL.exec(line.trim());
      if (level) {
        const [, lvl, message = ''] = level;
        return { kind: 'said', text: message.trim(), failure: lvl === 'ERR' || lvl === 'FTL' };
      }
      const text = line.trim();
      return text ? { kind: 'said', text, failure: false } : null;
    },
  };
}

function ngrokPlan(origin: TunnelOrigin): ClientPlan {
  return {
    client: 'ngrok',
    name: 'ngrok',
    command: 'ngrok',
    args: [
      'http',
      origin.tls ? originUrl(origin) : String(origin.port),
      '--log',
      'stdout',
      '--log-format',
      'json',
    ],
    notFoundHint: 'install the ngrok agent (https://ngrok.com/download) and add your authtoken',
    read(line) {
      const text = line.trim();
      if (text === '') return null;
      if (text.startsWith('{')) {
        let record: Record<string, unknown>;
        try {
          record = JSON.parse(text) as Record<string, unknown>;
        } catch {
          return { kind: 'said', text, failure: false };
        }
        if (
          record.msg === 'started tunnel' &&
          typeof record.url === 'string' &&
          /^https?:\/\//.test(record.url)
        ) {
          return { kind: 'url', url: record.url };
        }
        if (record.msg === 'starting web service' && typeof record.addr === 'string') {
          return { kind: 'api', addr: record.addr };
        }
        const level = typeof record.lvl === 'string' ? record.lvl : '';
        if (level === 'eror' || level === 'crit') {
          return { kind: 'said', text: ngrokError(record), failure: true };
        }
        return null;
      }
      // stderr repeats the JSON error over several "ERROR:  …" lines (the last is a docs link):
      // kept only as a fallback for the JSON record, which says it in one line.
      const error = /^ERROR:\s*(.*)$/.exec(text);
      if (error) return error[1] ? { kind: 'said', text: error[1], failure: false } : null;
      return { kind: 'said', text, failure: false };
    },
  };
}

/** An ngrok error record as one line: the first line of `err` (or `msg`) and its ERR_NGROK code. */
function ngrokError(record: Record<string, unknown>): string {
  const err = typeof record.err === 'string' ? record.err : '';
  const msg = typeof record.msg === 'string' ? record.msg : 'error';
  const first = err.split(/\r?\n/)[0]?.trim() || msg;
  const code = /ERR_NGROK_\d+/.exec(err)?.[0];
  return code && !first.includes(code) ? `${first} (${code})` : first;
}

/** The public URL in ngrok's local API answer (`{tunnels:[{public_url}]}`), https first. */
export function ngrokApiUrl(body: unknown): string | null {
  const tunnels = (body as { tunnels?: unknown } | null)?.tunnels;
  if (!Array.isArray(tunnels)) return null;
  const urls = tunnels
    .map((t) => (t as { public_url?: unknown } | null)?.public_url)
    .filter((u): u is string => typeof u === 'string' && /^https?:\/\//.test(u));
  return urls.find((u) => u.startsWith('https://')) ?? urls[0] ?? null;
}
