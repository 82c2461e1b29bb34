/**
 * A real OpenSSH server on 127.0.0.1 for the ssh tunnel test (issue 14; toolchain notes 11):
 * a temporary host key, a user key authorized for root, a config allowing remote forwards, and
 * `/usr/sbin/sshd -D -e -f CONFIG`. Nothing is installed here: CI (.ci/run) installs Debian's
 * openssh-server and openssh-client, and a machine without them fails the test with a message
 * saying so. Every sshd process (the listener and the per-connection ones it forks) is stopped
 * by PID.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

export const SSHD = '/usr/sbin/sshd';

export interface SshFixture {
  port: number;
  /** The private key authorized for root, and the host's key (issue 26: the Bank page's settings). */
  userKey: string;
  hostKey: string;
  /** DETS_SSH_COMMAND for the console: the user key and a known-hosts file of its own. */
  sshCommand: string;
  start(): Promise<void>;
  /** Kills the listener and every sshd it forked (the live sessions), by PID. */
  kill(): Promise<void>;
  readonly log: string;
}

function requireOpenSsh(): void {
  const missing = [SSHD, '/usr/bin/ssh', '/usr/bin/ssh-keygen'].filter((f) => !existsSync(f));
  if (missing.length > 0) {
    throw new Error(
      `the ssh tunnel test needs OpenSSH: ${missing.join(', ')} missing. Install Debian's openssh-server and ` +
        'openssh-client (.ci/run does); this test is never skipped',
    );
  }
}

/** The PIDs of `pid`'s descendants, from /proc (Linux). */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(entry), Number(fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, pp] of parent) {
      if (pp === p) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

function canConnect(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, host);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** sshd_config lines that replace the fixture's defaults (e.g. `AllowTcpForwarding: 'no'`). */
export interface SshdOptions {
  config?: Record<string, string>;
  /** ListenAddress (default 127.0.0.1). */
  listen?: string;
}

export async function sshFixture(dir: string, port: number, opts: SshdOptions = {}): Promise<SshFixture> {
  requireOpenSsh();
  await mkdir(dir, { recursive: true });
  // sshd refuses to start without its privilege separation directory.
  await mkdir('/run/sshd', { recursive: true });
  const hostKey = path.join(dir, 'host_ed25519');
  const userKey = path.join(dir, 'user_ed25519');
  for (const key of [hostKey, userKey]) {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  }
  const authorized = path.join(dir, 'authorized_keys');
  await writeFile(authorized, readFileSync(`${userKey}.pub`), { mode: 0o600 });
  const config = path.join(dir, 'sshd_config');
  const overrides = opts.config ?? {};
  const line = (l: string) => {
    const key = l.split(' ')[0]!;
    return key in overrides ? `${key} ${overrides[key]}` : l;
  };
  await writeFile(
    config,
    [
      `Port ${port}`,
      `ListenAddress ${opts.listen ?? '127.0.0.1'}`,
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${authorized}`,
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'StrictModes no',
      'AllowTcpForwarding yes',
      'GatewayPorts no',
      // Remote forwards on IPv4 only: with both families, sshd picks a free port on one and takes
      // the same number on the other, which another test's server may hold on 127.0.0.1 (a CI
      // run reached such a server through the "forwarded" port once: 404 for /user_auth).
      'AddressFamily inet',
      'UsePAM no',
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      '',
    ]
      .map(line)
      .join('\n'),
  );
  let child: ChildProcess | null = null;
  let log = '';
  const knownHosts = path.join(dir, 'known_hosts');
  return {
    port,
    userKey,
    hostKey,
    sshCommand: `ssh -i ${userKey} -o UserKnownHostsFile=${knownHosts} -o StrictHostKeyChecking=accept-new`,
    get log() {
      return log;
    },
    async start() {
      child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
      for (let i = 0; i < 100; i++) {
        if (await canConnect(port, opts.listen)) return;
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`sshd did not start on ${opts.listen ?? '127.0.0.1'}:${port}:\n${log}`);
    },
    async kill() {
      const c = child;
      child = null;
      if (!c?.pid || c.exitCode !== null) return;
      const pids = [c.pid, ...descendants(c.pid)];
      const exited = new Promise((r) => c.once('exit', r));
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
      await exited;
    },
  };
}
