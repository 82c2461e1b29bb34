/**
 * Fetches an ssh host's key so the engineer can confirm it (issue 26 item 4), without trusting
 * it and without logging in.
 *
 * Why ssh and not ssh-keyscan: the same program, ~/.ssh/config (host aliases, HostName) and
 * the page's options (a `-J` jump host) as the tunnel itself, so the key shown is the one the
 * tunnel's ssh will check, reached the same way; ssh-keyscan follows none of them. ssh runs with
 * `StrictHostKeyChecking=accept-new` into a scratch known-hosts file (in a private temporary
 * folder, deleted after) and every authentication method off, so it stops right after it has
 * recorded the key: nothing is pinned (that waits for the engineer), no key or agent is offered.
 *
 * Threat model: the key is the claim of a host not yet trusted; it is only shown, and pinned
 * later by exact fingerprint (service.ts). The process is bounded in time and stopped by PID.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readFileOrNull } from '../common';
import { parseKnownHosts, type KnownHostLine } from './known-hosts';

/** How long the scan may take. */
export const SCAN_TIMEOUT_MS = 15_000;

export interface ScanInput {
  command: string;
  /** The page's extra options (already checked). */
  options: readonly string[];
  user: string | null;
  host: string;
  port: number | null;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/**
 * The host's key lines (what ssh would write in known_hosts), empty when none came; rejects when
 * ssh cannot be started.
 *
 * @example
 * const lines = await scanHostKeys({ command: 'ssh', options: [], user: 'me', host: 'h', port: 2222 });
 * lines[0]?.hosts; // '[h]:2222'
 */
export async function scanHostKeys(input: ScanInput): Promise<KnownHostLine[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dets-hostkey-'));
  const scratch = path.join(dir, 'known_hosts');
  try {
    const host = input.host.replace(/^\[(.*)\]$/, '$1');
    const args = [
      // First: ssh keeps the first value of each option, so these win over the page's.
      ...['-o', `UserKnownHostsFile=${/\s/.test(scratch) ? `"${scratch}"` : scratch}`],
      ...['-o', `GlobalKnownHostsFile=${os.devNull}`],
      ...['-o', 'StrictHostKeyChecking=accept-new'],
      ...['-o', 'HashKnownHosts=no', '-o', 'CheckHostIP=no', '-o', 'UpdateHostKeys=no'],
      ...['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10'],
      ...['-o', 'PreferredAuthentications=none', '-o', 'PubkeyAuthentication=no'],
      ...['-o', 'IdentityAgent=none', '-o', 'IdentitiesOnly=yes'],
      ...input.options,
      '-N',
      ...(input.port !== null ? ['-p', String(input.port)] : []),
      input.user ? `${input.user}@${host}` : host,
    ];
    await new Promise<void>((resolve, reject) => {
      const child = spawn(input.command, args, {
        stdio: ['ignore', 'ignore', 'ignore'],
        env: input.env ?? process.env,
        windowsHide: true,
      });
      const timer = setTimeout(() => {
        if (child.pid !== undefined) {
          try {
            process.kill(child.pid, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
      }, input.timeoutMs ?? SCAN_TIMEOUT_MS);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return parseKnownHosts((await readFileOrNull(scratch)) ?? '');
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
