/**
 * Where the bank endpoints can be reached from (issue 14: "the UI shows which interfaces the
 * bank endpoints are reachable on"): a wildcard host (0.0.0.0, ::) listens on every interface.
 */
import net from 'node:net';
import os from 'node:os';

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

export function isWildcardHost(host: string): boolean {
  return WILDCARDS.has(host);
}

/** True for localhost, 127.0.0.0/8 and ::1 (one definition for the warning and the UI). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || (net.isIPv4(h) && h.startsWith('127.'));
}

/** The addresses a listener bound to `host` accepts connections on. */
export function reachableAddresses(
  host: string,
  interfaces: ReturnType<typeof os.networkInterfaces> = os.networkInterfaces(),
): string[] {
  if (!isWildcardHost(host)) return [host];
  const ipv4Only = host === '0.0.0.0';
  const out: string[] = [];
  for (const [name, list] of Object.entries(interfaces)) {
    for (const a of list ?? []) {
      if (ipv4Only && a.family !== 'IPv4') continue;
      out.push(
        `${a.family === 'IPv6' ? `[${a.address}]` : a.address} (${name}${a.internal ? ', loopback' : ''})`,
      );
    }
  }
  return out;
}

/** The address a local client (the tunnel) connects to for a listener on `host`. */
export function localAddressFor(host: string): string {
  if (host === '::' || host === '[::]') return '::1';
  if (isWildcardHost(host) || host === 'localhost') return '127.0.0.1';
  return host.replace(/^\[|\]$/g, '');
}
