/**
 * What `serve` says once its listeners are up (DESIGN.md "Command line"): the tunnel the ready
 * line waits for (issue 14), the tunnel's drops and returns on stderr, and the human banner.
 */
import { ConsoleError } from '../../contract';
import type { ConsoleCore } from '../../core/console-core';
import { TunnelError } from '../../core/tunnel';
import { EXIT, UsageError } from '../io';
import type { ListenerKey } from './serve-listeners';
import type { ServeOptions } from './serve-options';

/**
 * --tunnel: the ready line waits for it (up to 30 s). Resolves null when it is up (or a stop
 * signal came first), else EXIT.FAILED after `shutdown` for a tunnel that cannot be made; a
 * bad target is a usage error.
 */
export async function startTunnel(
  core: ConsoleCore,
  tunnel: NonNullable<ServeOptions['tunnel']>,
  stopped: Promise<unknown>,
  shutdown: () => Promise<void>,
  log: (line: string) => void,
): Promise<number | null> {
  const made = await Promise.race([
    core.tunnel.start(tunnel).then(
      () => null,
      (err: unknown) => err,
    ),
    stopped.then(() => null),
  ]);
  if (made === null) return null;
  await shutdown();
  if (made instanceof TunnelError) {
    log(made.message);
    return EXIT.FAILED;
  }
  if (made instanceof ConsoleError && made.code === 'BAD_ARGUMENT') throw new UsageError(made.message);
  throw made;
}

/** Logs each change of the tunnel's state or URL once: up with its URL, down with the client's words. */
export function logTunnelChanges(core: ConsoleCore, log: (line: string) => void): void {
  let lastTunnelLog = '';
  core.events.on('tunnel.changed', (s) => {
    const t = s.tunnel;
    if (!t) return;
    const key = `${t.state} ${t.url ?? ''}`;
    // Up, but the probe found the URL unreachable from here (GatewayPorts; issue 26 item 4).
    if (t.state === 'up' && t.failure && `${key} ${t.failure.code}` !== lastTunnelLog) {
      lastTunnelLog = `${key} ${t.failure.code}`;
      log(`tunnel (${t.client}): ${t.failure.message}; ${t.failure.action}`);
      return;
    }
    if (key === lastTunnelLog || lastTunnelLog.startsWith(`${key} `)) return;
    lastTunnelLog = key;
    if (t.state === 'up') log(`tunnel (${t.client}) up: ${t.url ?? ''}`);
    else if (t.state === 'down')
      log(
        `tunnel (${t.client}) down: ${t.last_error ?? 'the client exited'}; retrying${t.next_retry_at ? ` at ${t.next_retry_at}` : ''}`,
      );
  });
}

/** The banner a person reads (without --json). */
export function humanBanner(
  urls: Partial<Record<ListenerKey, string>>,
  dataDir: string,
  publicUrl: string | null,
): string {
  const lines = [
    'DETS Console is running in browser mode.',
    '',
    '  Open this URL in your browser:',
    `    ${urls.ui}`,
    '',
  ];
  if (urls.bank) lines.push(`  Bank endpoints: ${urls.bank}`);
  if (publicUrl) {
    lines.push(`  Public URL:     ${publicUrl}   (register it as bank_auth_url and notification host)`);
  }
  if (urls.sandbox) lines.push(`  Sandbox:        ${urls.sandbox}`);
  lines.push(
    `  Profile: ${dataDir}`,
    '',
    'The URL carries this launch\u2019s access token: anyone who has it can use the console until it stops.',
    'Press Ctrl-C to stop.',
    '',
  );
  return lines.join('\n');
}
