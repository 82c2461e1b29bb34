/**
 * The one place the desktop app hands a URL to the operating system (STYLE.md 5).
 *
 * Threat model: the URL comes from page content (a link with target=_blank, window.open). A
 * compromised page must not be able to launch local programs through `file:`, custom URL
 * handlers (`ms-msdt:`, `smb:`…) or `javascript:`, so only http and https URLs leave the app,
 * re-serialised from the parsed URL. Nor may it send the engineer, unasked, to a look-alike
 * site (phishing for the service's credentials, a drive-by download): an address outside the
 * service's configured origins (the active environment's base_url, the sandbox) opens only
 * after the engineer has read it, host first and in punycode, in a native dialog the page cannot
 * draw or click. The page never sees these functions.
 */
import type { BrowserWindow, Dialog, MessageBoxOptions, Shell } from 'electron';
import type { MethodOutput } from '../contract';

type Environments = MethodOutput<'env.list'>;

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);

/** The http(s) URL to hand to the OS, or null when `raw` must not leave the app. */
export function externalUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  return ALLOWED_PROTOCOLS.has(url.protocol) ? url.href : null;
}

/**
 * Opens an http(s) URL in the user's browser; anything else is dropped. Returns whether the
 * URL was handed over.
 *
 * @example
 * openExternalUrl(shell, 'https://example.com/docs'); // true
 * openExternalUrl(shell, 'file:///etc/passwd');       // false, nothing opens
 */
export function openExternalUrl(shell: Pick<Shell, 'openExternal'>, raw: string): boolean {
  const href = externalUrl(raw);
  if (href === null) return false;
  // Audit: reviewed; this is the app's only openExternal and it passes http(s) URLs only.
  const opening = shell.openExternal(href); // eng-disable OPEN_EXTERNAL_JS_CHECK
  opening.catch((err: unknown) => {
    console.warn(`dets-console: could not open ${href}: ${err instanceof Error ? err.message : String(err)}`);
  });
  return true;
}

/** The origin of an http(s) URL, or null (a base_url that is not set or not a URL). */
export function httpOrigin(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const href = externalUrl(raw);
  return href === null ? null : new URL(href).origin;
}

/**
 * The origins a link may open without asking: the active environment's base_url and the
 * built-in sandbox (its environment's base_url and the listener this app runs).
 */
export function serviceOrigins(envs: Environments | null, sandboxUrl: string | null): string[] {
  const active = envs?.environments.find((e) => e.id === envs.active_id);
  const sandbox = envs?.environments.filter((e) => e.kind === 'sandbox') ?? [];
  const origins = [active?.base_url, ...sandbox.map((e) => e.base_url), sandboxUrl].map(httpOrigin);
  return [...new Set(origins.filter((o): o is string => o !== null))];
}

/** The native dialog asking before an address outside the service's origins leaves the app. */
export function confirmOptions(href: string): MessageBoxOptions {
  const { host } = new URL(href);
  return {
    type: 'question',
    title: 'Open in your browser?',
    message: `Open ${host} in your browser?`,
    // URL#host and #href are punycode for international names, so a look-alike shows as xn--.
    detail: `The page asked to open an address outside the service's configured hosts:\n\n${href}\n\nOpen it only if you expected this address.`,
    buttons: ['Open in browser', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    noLink: true,
  };
}

export interface ExternalOpenerDeps {
  shell: Pick<Shell, 'openExternal'>;
  dialog: Pick<Dialog, 'showMessageBox'>;
  /** The service's configured origins now (the active environment's, the sandbox's). */
  knownOrigins: () => Promise<Iterable<string>>;
  /** The window the dialog belongs to, if any. */
  parent: () => BrowserWindow | null;
}

/**
 * The app's openExternal: http(s) only; an address on one of the service's configured origins
 * opens at once, any other after the engineer confirms it. Returns false when the URL is dropped
 * outright (not http(s)); true when it is opened or put to the engineer. Resolves `settled`
 * (for tests) once the URL has been opened or refused.
 *
 * @example
 * const open = createExternalOpener({ shell, dialog, knownOrigins, parent: () => mainWindow });
 * open('https://sandbox.example/docs'); // opens when the active environment is https://sandbox.example
 * open('https://elsewhere.example/');   // asks first
 */
export function createExternalOpener(deps: ExternalOpenerDeps): {
  (raw: string): boolean;
  settled: () => Promise<void>;
} {
  let pending: Promise<unknown> = Promise.resolve();
  const decide = async (href: string): Promise<void> => {
    let known: Set<string>;
    try {
      known = new Set(await deps.knownOrigins());
    } catch {
      known = new Set(); // cannot tell: ask, never open unasked
    }
    if (!known.has(new URL(href).origin)) {
      const parent = deps.parent();
      const options = confirmOptions(href);
      const { response } = await (parent && !parent.isDestroyed()
        ? deps.dialog.showMessageBox(parent, options)
        : deps.dialog.showMessageBox(options));
      if (response !== 0) return;
    }
    openExternalUrl(deps.shell, href);
  };
  const open = (raw: string): boolean => {
    const href = externalUrl(raw);
    if (href === null) return false;
    const run = decide(href).catch((err: unknown) => {
      console.warn(`dets-console: did not open ${href}: ${err instanceof Error ? err.message : String(err)}`);
    });
    pending = Promise.all([pending, run]);
    return true;
  };
  return Object.assign(open, { settled: () => pending.then(() => undefined) });
}
