/**
 * What ssh's own words mean, and what to do about them (issue 26 item 4): the one module that
 * reads OpenSSH's stderr. Each failure has its own code (contract `SshFailureCode`), a message
 * saying what happened and an action saying what to do. ssh runs at its default LogLevel
 * (INFO): `Allocated port N` is an INFO line, and every line read here is an ERROR one.
 *
 * What ssh lets a client know, and so what is detected (docs/real-environment.md):
 * - a remote forward refused is one line whatever the reason (`remote port forwarding failed for
 *   listen port N`): sshd sends no reason. With `-R 0:` (any port) it means forwarding is not
 *   allowed (`AllowTcpForwarding no`/`local`, `PermitListen`); with a fixed port the tunnel tries
 *   `-R 0:` once to tell "port in use" (0 works) from "not allowed" (0 fails too), see service.ts.
 * - `GatewayPorts` is never said by ssh: sshd binds the port to its own loopback and answers
 *   success. It is detected by the probe (the port was allocated, the public URL does not
 *   answer from here): {@link gatewayPortsFailure}.
 *
 * Threat model: the lines come from a program the user chose and from the remote host (banner,
 * key names); only known shapes are read, every value taken from them is cut to one short line.
 */
import type { SshFailure } from '../../contract/schemas/tunnel';

/** What the failure messages name. */
export interface SshContext {
  /** The ssh host as the target names it (brackets kept for IPv6). */
  host: string;
  port: number | null;
  /** The fixed remote port asked for, null for `-R 0:`. */
  remotePort: number | null;
  identityFile: string | null;
  /** `<data-dir>/ssh/known_hosts`. */
  pinnedFile: string;
  /** DETS_SSH_COMMAND, when set. */
  override: string | null;
}

const clip = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 200);

const where = (c: SshContext) => `${c.host}${c.port !== null ? ` port ${c.port}` : ''}`;

/** `ssh` (or DETS_SSH_COMMAND's program) could not be started. */
export function sshNotInstalled(command: string, c: Pick<SshContext, 'override'>): SshFailure {
  return {
    code: 'ssh_not_installed',
    message: `not found (${command})`,
    action: c.override
      ? 'DETS_SSH_COMMAND names a program that is not installed or not on PATH: fix DETS_SSH_COMMAND'
      : 'install an OpenSSH client (Debian/Ubuntu: apt install openssh-client; macOS and Windows have one), or name one in DETS_SSH_COMMAND',
  };
}

/** The port was allocated but the public URL does not answer from here (see the module doc). */
export function gatewayPortsFailure(url: string): SshFailure {
  return {
    code: 'gateway_ports',
    message: `the ssh host allocated the port, but nothing answers at ${url} from this machine`,
    action:
      "the ssh host's sshd binds a remote forward to its own loopback unless its sshd_config has `GatewayPorts yes` (or `clientspecified`); `no` is the default. Set it, reload sshd and Test from outside again; if it is set, a firewall in front of that port is the next suspect (docs/real-environment.md)",
  };
}

type Rule = (text: string, lines: string[], c: SshContext) => SshFailure | null;

const hostKeyChanged: Rule = (text, _lines, c) => {
  if (!/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for \S+ has changed/.test(text)) return null;
  const now = /The fingerprint for the (\S+) key sent by the remote host is\s+(SHA256:[A-Za-z0-9+/]+)/.exec(
    text,
  );
  const offending = /Offending \S+ key in (\S+):(\d+)/.exec(text);
  return {
    code: 'host_key_changed',
    message: `the host key of ${where(c)} CHANGED${now ? ` (it now shows ${now[1]} ${now[2]})` : ''}: this may be an attack (someone between you and the host), or the host was reinstalled; the tunnel was refused`,
    action: `ask the host's owner for its new fingerprint (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub on the host). Only if it matches, unpin the old key (Bank page: Unpin, or ssh-keygen -R '${c.port !== null && c.port !== 22 ? `[${c.host}]:${c.port}` : c.host}' -f ${offending?.[1] ?? c.pinnedFile}) and confirm the new one`,
  };
};

const hostKeyUnknown: Rule = (text, _lines, c) => {
  if (!/No \S+ host key is known for|Host key verification failed/.test(text)) return null;
  return {
    code: 'host_key_unknown',
    message: `the host key of ${where(c)} is not known yet (ssh refuses an unknown host in batch mode)`,
    action:
      c.override && /UserKnownHostsFile/i.test(c.override)
        ? 'DETS_SSH_COMMAND names its own known-hosts file, which ssh reads first: add the host key there (after comparing its fingerprint with the host owner)'
        : `compare its fingerprint with the host's owner and confirm it on the Bank page; it is then pinned in ${c.pinnedFile}`,
  };
};

const identityUnusable: Rule = (text, _lines, c) => {
  const m =
    /Identity file (.+?) not accessible: ([^.]+)/.exec(text) ??
    /Load key "([^"]+)": ([^\n]+)/.exec(text) ??
    /no such identity: ([^:]+): (.+)/.exec(text);
  if (!m || !/Permission denied/.test(text)) return null;
  const bad = /bad permissions|UNPROTECTED PRIVATE KEY FILE/.test(text);
  return {
    code: 'identity_unusable',
    message: `ssh could not use the identity file ${clip(m[1] ?? c.identityFile ?? '')} (${clip(m[2] ?? '')}), and the host refused the others`,
    action: bad
      ? `ssh ignores a private key others can read: chmod 600 ${clip(m[1] ?? '')}`
      : "check the identity file on the Bank page: it must be the PRIVATE key's file (not the .pub), readable, and not protected by a passphrase (the tunnel runs unattended), or loaded in ssh-agent",
  };
};

const authRefused: Rule = (text, _lines, c) => {
  const m = /(\S+): Permission denied \(([^)]*)\)\.?/.exec(text);
  if (!m) return null;
  const tried = c.identityFile
    ? `with the identity ${c.identityFile}`
    : c.override
      ? 'with the identities DETS_SSH_COMMAND names'
      : "with ssh's default keys (no identity file is set)";
  return {
    code: 'auth_refused',
    // ssh's own words first: they name the user, the host and the methods the host accepts.
    message: `${clip(m[0])} The host refused the login ${tried}`,
    action: `${c.override && !c.identityFile ? 'name in DETS_SSH_COMMAND (-i) or on the Bank page' : 'set the identity file on the Bank page to'} the private key whose public half is in the ssh user's authorized_keys on ${c.host}, and check the user in ssh:[USER@]HOST`,
  };
};

const forwardRefused: Rule = (text, _lines, c) => {
  const m = /remote port forwarding failed for listen port (\d+)/.exec(text);
  if (!m) return null;
  if (c.remotePort !== null && Number(m[1]) === c.remotePort) {
    // The service tells in-use from not-allowed by trying -R 0: (see the module doc).
    return {
      code: 'remote_port_in_use',
      message: `the ssh host refused remote port ${c.remotePort}: it is already in use there (another tunnel, or a server), or its sshd's PermitListen excludes it`,
      action: `choose another remote port on the Bank page (or leave it empty: the host picks a free one), or stop what holds port ${c.remotePort} on ${c.host}`,
    };
  }
  return {
    code: 'forward_refused',
    message: `the ssh host refused to forward a remote port (listen port ${m[1]})`,
    action: `its sshd does not allow remote forwarding: set \`AllowTcpForwarding yes\` (or \`remote\`) in ${c.host}'s sshd_config (and no PermitListen that excludes the port), reload sshd, and start again`,
  };
};

const connectFailed: Rule = (text, _lines, c) => {
  const dns = /Could not resolve hostname (\S+): (.+)/.exec(text);
  if (dns) {
    return {
      code: 'dns',
      message: `the ssh host name ${clip(dns[1] ?? '').replace(/:$/, '')} does not resolve (${clip(dns[2] ?? '')})`,
      action: 'check the host in ssh:[USER@]HOST[:PORT] for a typo, and this machine’s DNS or VPN',
    };
  }
  if (/connect to host \S+ port \d+: Connection refused/.test(text)) {
    return {
      code: 'connection_refused',
      message: `nothing accepts ssh connections at ${where(c)} (connection refused)`,
      action: 'check the port in ssh:[USER@]HOST[:PORT] (22 by default) and that sshd runs on the host',
    };
  }
  const m =
    /connect to host \S+ port \d+: (No route to host|Network is unreachable|Connection timed out|Operation timed out)/.exec(
      text,
    ) ?? /(kex_exchange_identification: .+|Connection closed by \S+ port \d+)/.exec(text);
  if (!m) return null;
  return {
    code: 'host_unreachable',
    message: `${where(c)} could not be reached (${clip(m[1] ?? '')})`,
    action: 'check the host and port, this machine’s network or VPN, and any firewall between them',
  };
};

/** Most specific first: a changed key also says "Host key verification failed". */
const RULES: Rule[] = [
  hostKeyChanged,
  hostKeyUnknown,
  identityUnusable,
  authRefused,
  forwardRefused,
  connectFailed,
];

/**
 * What ssh's stderr `lines` mean.
 *
 * @example
 * diagnoseSsh(['root@h: Permission denied (publickey).'], context).code; // 'auth_refused'
 */
export function diagnoseSsh(lines: readonly string[], c: SshContext): SshFailure {
  const text = lines.map((l) => l.replace(/\r$/, '')).join('\n');
  for (const rule of RULES) {
    const failure = rule(text, lines as string[], c);
    if (failure) return failure;
  }
  const last = [...lines].reverse().find((l) => l.trim() !== '' && !/^Warning: Permanently added/.test(l));
  return {
    code: 'ssh_failed',
    message: last ? clip(last.replace(/^ssh: /, '')) : 'ssh exited without saying why',
    action: 'run the same ssh by hand with -v to see more (docs/real-environment.md lists the usual causes)',
  };
}
