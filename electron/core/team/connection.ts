/**
 * The answers of `team.connection` (issue 30 item 2), shared by the attached core and a plain
 * core that cannot attach, and the one reading of a hub URL (the CLI's `attach` and the
 * desktop app's start page).
 */
import { badArgument, ConsoleError, type Handlers } from '../../contract';
import type { TeamConnection } from '../../contract/schemas/team';

/** A console whose pages are its own. */
export function detachedConnection(canAttach: boolean, detail: string | null = null): TeamConnection {
  return {
    state: 'detached',
    hub_url: null,
    hub: null,
    member: null,
    role: null,
    remembered: false,
    detail,
    retry_in_ms: null,
    attempts: 0,
    can_attach: canAttach,
  };
}

/**
 * A hub's base URL: http(s), no credentials in it (the token goes apart), its path dropped.
 * Throws BAD_ARGUMENT naming `field`.
 *
 * @example
 * hubUrl('https://hub.bank.example:7300/x?y').href; // 'https://hub.bank.example:7300/'
 */
export function hubUrl(value: string, field = 'hub_url'): URL {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw badArgument(`${field}: "${value}" is not a URL`, field);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw badArgument(`${field}: "${value}" is not an http(s) URL`, field);
  if (url.username || url.password)
    throw badArgument(`${field}: must not carry credentials (the member token goes apart)`, field);
  return new URL('/', url);
}

const CANNOT_ATTACH =
  'This console cannot attach to a team hub: it is a hub itself, or already a hub’s page (dets-console attach). Attach from the desktop app or from `dets-console serve` on your laptop.';

/** The team.* handlers of a core that cannot attach (a hub; the core under `attach`). */
export function unattachableHandlers(): Pick<Handlers, 'team.connection' | 'team.attach' | 'team.detach'> {
  return {
    'team.connection': () => Promise.resolve(detachedConnection(false)),
    'team.attach': () => Promise.reject(new ConsoleError('FORBIDDEN', CANNOT_ATTACH)),
    'team.detach': () => Promise.reject(new ConsoleError('FORBIDDEN', CANNOT_ATTACH)),
  };
}
