/**
 * The ssh tunnel's command line (DESIGN.md "Command line", issue 14; issue 26 item 4):
 *
 *   <DETS_SSH_COMMAND words, or ssh> <the environment's settings> -N -R <remote port>:<origin>
 *   <the console's options> [-p PORT] [USER@]HOST
 *
 * ssh keeps the FIRST value it is given for each option, so DETS_SSH_COMMAND's options win over
 * the page's (DESIGN.md: it replaces the ssh command line), and the page's over ~/.ssh/config.
 * The settings add the identity, the extra options, and the known-hosts files: the console's
 * pinned one first, then the user's (ssh-settings.ts), with `StrictHostKeyChecking=yes`, so an
 * unknown or changed host key stops ssh and is shown on the Bank page instead.
 */
import path from 'node:path';
import { splitShellWords } from '../common';
import type { ClientPlan, SshRun, TunnelOrigin, TunnelSpec } from './plan';
import { diagnoseSsh, sshNotInstalled } from './ssh-failures';
import { sshSettingsArgs } from './ssh-settings';

const ALLOCATED = /Allocated port (\d+) for remote forward to/;

/** The program and leading options: DETS_SSH_COMMAND's words, or `ssh`. */
export function sshCommandWords(env: NodeJS.ProcessEnv): { words: string[]; custom: string | null } {
  const custom = env.DETS_SSH_COMMAND?.trim() || null;
  let words: string[];
  try {
    words = custom ? splitShellWords(custom) : ['ssh'];
  } catch (err) {
    throw new Error(`DETS_SSH_COMMAND: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (!words[0]) throw new Error('DETS_SSH_COMMAND: is empty');
  return { words, custom };
}

/** ssh takes an IPv6 destination without brackets. */
export function bareHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

/** The ssh plan for `spec` leading to `origin`. */
export function sshPlan(
  spec: Extract<TunnelSpec, { client: 'ssh' }>,
  origin: TunnelOrigin,
  env: NodeJS.ProcessEnv,
  ssh?: SshRun,
): ClientPlan {
  const { words, custom } = sshCommandWords(env);
  const [command, ...prefix] = words as [string, ...string[]];
  const forwardTo = origin.host.includes(':')
    ? `[${origin.host}]:${origin.port}`
    : `${origin.host}:${origin.port}`;
  const remotePort = ssh?.settings.remote_port ?? null;
  const args = [
    ...prefix,
    ...(ssh ? sshSettingsArgs(ssh.settings, ssh.pinnedFile) : []),
    '-N',
    '-R',
    // 0: the ssh host picks a free port and says which (DESIGN.md: "-R 0:…"), unless the
    // environment asks for a fixed one.
    `${remotePort ?? 0}:${forwardTo}`,
    // Without it ssh stays up with no forward when the remote port cannot be had.
    '-o',
    'ExitOnForwardFailure=yes',
    // A dead link is noticed within 45 s and the tunnel re-made.
    '-o',
    'ServerAliveInterval=15',
    '-o',
    'ServerAliveCountMax=3',
    // Never a password or passphrase prompt: serve runs unattended.
    '-o',
    'BatchMode=yes',
    ...(spec.port !== null ? ['-p', String(spec.port)] : []),
    spec.user ? `${spec.user}@${bareHost(spec.host)}` : bareHost(spec.host),
  ];
  const name = path.basename(command);
  const scheme = origin.tls ? 'https' : 'http';
  const context = {
    host: spec.host,
    port: spec.port,
    remotePort,
    identityFile: ssh?.settings.identity_file ?? null,
    pinnedFile: ssh?.pinnedFile ?? '~/.ssh/known_hosts',
    override: custom,
  };
  return {
    client: 'ssh',
    name,
    command,
    args,
    notFoundHint: custom
      ? 'check DETS_SSH_COMMAND'
      : 'install an OpenSSH client, or name one in DETS_SSH_COMMAND',
    // ssh reports the allocated port at log level INFO; QUIET or ERROR hide it.
    slowHint:
      'ssh names the allocated remote port at LogLevel INFO: check LogLevel in DETS_SSH_COMMAND and ~/.ssh/config',
    read(line) {
      const allocated = ALLOCATED.exec(line);
      if (allocated) return { kind: 'url', url: `${scheme}://${spec.host}:${allocated[1]}` };
      const text = line.trim();
      if (text === '' || /^Warning: Permanently added/.test(text)) return null;
      return { kind: 'said', text: text.replace(new RegExp(`^${name}: `), ''), failure: true };
    },
    diagnose(lines, notFound) {
      return notFound ? sshNotInstalled(command, context) : diagnoseSsh(lines, context);
    },
  };
}
