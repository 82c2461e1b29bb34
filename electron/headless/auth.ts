/**
 * Who may talk to the headless host: the holder of this launch's token, from a page whose
 * address is the host's own. See the threat model at the top of `server.ts`.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import type { IncomingMessage } from 'node:http';
import { TRANSPORT } from '../contract';
import { isLoopbackHost } from '../core/tunnel/interfaces';

/** A fresh per-launch access token: 32 random bytes, base64url (43 characters). */
export function createToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Constant-time token comparison. Both sides are hashed first so `timingSafeEqual` always gets
 * equal-length buffers and the time taken says nothing about the expected token, not even its
 * length (STYLE.md: never `token !== expected`).
 */
export function tokenMatches(expected: string, candidate: string | undefined): boolean {
  if (typeof candidate !== 'string' || candidate.length === 0 || candidate.length > 1024) return false;
  const a = createHash('sha256').update(expected, 'utf8').digest();
  const b = createHash('sha256').update(candidate, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * The token a request presents: the `X-DETS-Token` header, and nothing else. No cookie is ever
 * read (a browser sends 127.0.0.1 cookies to every port, so a cookie is no proof of anything,
 * DESIGN.md "Architecture"), and no query parameter either: a credential in a URL travels in
 * navigations and resource loads that any page can trigger, a header only in a same-origin
 * script's request (another origin's would need a CORS preflight this server never grants).
 * A repeated header arrives joined (`a, b`) and so matches nothing.
 */
export function presentedToken(req: IncomingMessage): string | undefined {
  const header = req.headers[TRANSPORT.tokenHeader.toLowerCase()];
  return typeof header === 'string' ? header : undefined;
}

/** Whether `path` is the API (calls, the event stream, downloads): everything there needs the token. */
export function isApiPath(path: string): boolean {
  return path === TRANSPORT.apiRoot || path.startsWith(`${TRANSPORT.apiRoot}/`);
}

const WILDCARD = new Set(['0.0.0.0', '::']);

/** One loopback rule for the console (core/tunnel/interfaces.ts): the warning, the guard and the UI. */
export const isLoopbackAddress = isLoopbackHost;

/** `host:port` as a Host header spells it (IPv6 in brackets, port omitted for 80). */
function hostHeader(address: string, port: number): string[] {
  const name = net.isIPv6(address) ? `[${address.toLowerCase()}]` : address.toLowerCase();
  return port === 80 ? [`${name}:80`, name] : [`${name}:${port}`];
}

/**
 * The Host header values this server answers to (the DNS-rebinding guard): its bound address
 * and `localhost`, at its port. `[::1]` is accepted only when bound there. A wildcard bind (an
 * explicit, warned-about choice) accepts the machine's own interface addresses: IP literals
 * cannot be rebound, only names can.
 */
export function allowedHosts(
  boundAddress: string,
  port: number,
  interfaceAddresses: string[] = [],
): Set<string> {
  const names = new Set<string>(['localhost']);
  if (WILDCARD.has(boundAddress)) {
    names.add('127.0.0.1');
    for (const a of interfaceAddresses) names.add(a);
  } else {
    names.add(boundAddress);
  }
  const hosts = new Set<string>();
  for (const n of names) for (const h of hostHeader(n, port)) hosts.add(h);
  return hosts;
}

/** An Origin header is acceptable only when it is this very origin (`http://<allowed Host>`). */
export function isSameOrigin(origin: string, host: string): boolean {
  return origin.toLowerCase() === `http://${host.toLowerCase()}`;
}
