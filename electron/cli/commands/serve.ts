/**
 * `dets-console serve`: the console in browser mode. One core for the profile, and its
 * listeners: the UI (the renderer and ConsoleApi over loopback HTTP, see electron/headless), the
 * embedded bank endpoints (--bank-port) and the sandbox service (--sandbox-port, unless
 * --no-sandbox).
 *
 * DESIGN.md "Command line" fixes the interface: the flags, port 0 = any free port, with --json
 * exactly one ready line on stdout once every listener is up (keys absent for listeners not
 * started) and nothing else, and SIGINT/SIGTERM = stop accepting, finish in-flight, flush the
 * event store, exit 0.
 *
 * Issue 14 adds the road in from the real service: --public-url, --tunnel (ssh, cloudflared,
 * ngrok: clients the user has; the ready line waits up to 30 s for it and adds "public", and a
 * tunnel that cannot be made exits 1 with the client's one line) and --tls-cert/--tls-key (HTTPS
 * on the bank endpoints; a certificate that is unreadable, mismatched or expired exits 2).
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import net from 'node:net';
import { ConsoleError } from '../../contract';
import { PublicUrl } from '../../contract/schemas/tunnel';
import { firstIssueMessage } from '../../contract/zod-issues';
import {
  loadTlsFiles,
  parseTunnelTarget,
  TlsFileError,
  TunnelError,
  type CheckedTls,
  type TunnelSpec,
} from '../../core/tunnel';
import { type ConsoleCore, type ListenerUrls } from '../../core/console-core';
import { ownerCore } from './owner-core';
import { isLoopbackAddress, openInBrowser, startHeadlessServer } from '../../headless';
import { EXIT, UsageError, dataDirFlag, numberFlagOrDefault, parseFlags, type CliIo } from '../io';
import { SERVE } from '../table';

/** Every flag of `serve`, validated. */
export interface ServeOptions {
  dataDir: string;
  host: string;
  uiPort: number;
  bankPort: number;
  /** null with --no-sandbox. */
  sandboxPort: number | null;
  /** Where the bank endpoints fetch the service's keys; undefined = the sandbox's JWKS. */
  serviceJwksUrl?: string;
  /** --users: the file, its text and the test customers it holds (checked to be a JSON array). */
  users?: { file: string; text: string; customers: unknown[] };
  open: boolean;
  json: boolean;
  /** --public-url, validated (no trailing slash). */
  publicUrl?: string;
  /** --tunnel, parsed. */
  tunnel?: TunnelSpec;
  /** --tls-cert/--tls-key, read and checked. */
  tls?: CheckedTls;
}

/** Ready-line keys, in the order DESIGN.md's example prints them. */
type ListenerKey = 'ui' | 'bank' | 'sandbox';

interface Listener {
  key: ListenerKey;
  /** The flag that chose the port, named in errors. */
  flag: string;
  port: number;
  /** Starts listening; the URL is the ready line's value for `key`. */
  start(core: ConsoleCore, options: ServeOptions): Promise<StartedListener>;
}

interface StartedListener {
  key: ListenerKey;
  url: string;
  close(): Promise<void>;
}

const READY_KEYS: readonly ListenerKey[] = ['ui', 'bank', 'sandbox'];

/** The listeners this invocation starts, each contributing its own ready-line key. */
function listenersFor(options: ServeOptions): Listener[] {
  const list: Listener[] = [
    {
      key: 'ui',
      flag: '--ui-port',
      port: options.uiPort,
      async start(core, opts) {
        const server = await startHeadlessServer({ core, host: opts.host, port: opts.uiPort });
        return { key: 'ui', url: server.tokenUrl, close: () => server.close() };
      },
    },
    {
      key: 'bank',
      flag: '--bank-port',
      port: options.bankPort,
      async start(core, opts) {
        const listener = await core.listenBank({
          host: opts.host,
          port: opts.bankPort,
          ...(opts.tls ? { tls: { cert: opts.tls.cert, key: opts.tls.key } } : {}),
        });
        return { key: 'bank', url: baseUrl(listener.url), close: () => listener.close() };
      },
    },
  ];
  if (options.sandboxPort !== null) {
    const port = options.sandboxPort;
    list.push({
      key: 'sandbox',
      flag: '--sandbox-port',
      port,
      async start(core, opts) {
        const listener = await core.listenSandbox({ host: opts.host, port });
        return { key: 'sandbox', url: baseUrl(listener.url), close: () => listener.close() };
      },
    });
  }
  return list;
}

/** A listener's base URL as the ready line prints it: no trailing slash. */
export function baseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Parses and checks every flag without side effects (no folder created, nothing bound). */
export async function parseServeFlags(argv: string[], io: CliIo): Promise<ServeOptions> {
  const { values } = parseFlags(argv, SERVE);

  const host = hostFlag(values.host);
  const uiPort = numberFlagOrDefault(SERVE, 'ui-port', values['ui-port']);
  const bankPort = numberFlagOrDefault(SERVE, 'bank-port', values['bank-port']);
  const noSandbox = values['no-sandbox'] === true;
  if (noSandbox && values['sandbox-port'] !== undefined) {
    throw new UsageError('--sandbox-port: cannot be combined with --no-sandbox');
  }
  const sandboxPort = noSandbox ? null : numberFlagOrDefault(SERVE, 'sandbox-port', values['sandbox-port']);

  const options: ServeOptions = {
    dataDir: dataDirFlag(values['data-dir'], io, 'write'),
    host,
    uiPort,
    bankPort,
    sandboxPort,
    open: values.open === true,
    json: values.json === true,
  };
  if (values['service-jwks-url'] !== undefined)
    options.serviceJwksUrl = httpUrlFlag('service-jwks-url', values['service-jwks-url']);
  if (values.users !== undefined) options.users = await usersFlag(values.users);
  if (values['public-url'] !== undefined) options.publicUrl = publicUrlFlag(values['public-url']);
  if (values.tunnel !== undefined) options.tunnel = tunnelFlag(values.tunnel);
  const cert = values['tls-cert'];
  const key = values['tls-key'];
  if ((cert === undefined) !== (key === undefined)) {
    throw new UsageError(cert === undefined ? '--tls-key: needs --tls-cert' : '--tls-cert: needs --tls-key');
  }
  if (cert !== undefined && key !== undefined) {
    try {
      options.tls = await loadTlsFiles(cert, key);
    } catch (err) {
      if (err instanceof TlsFileError) throw new UsageError(err.message);
      throw err;
    }
  }
  return options;
}

/** --public-url: the contract's rule (http(s), no credentials, no query), as a usage error. */
function publicUrlFlag(value: string): string {
  const checked = PublicUrl.safeParse(value);
  if (!checked.success) {
    throw new UsageError(`--public-url: "${value}" ${firstIssueMessage(checked.error, 'is not a URL')}`);
  }
  return checked.data;
}

function tunnelFlag(value: string): TunnelSpec {
  try {
    return parseTunnelTarget(value);
  } catch (err) {
    throw new UsageError(`--tunnel: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** --host: an IP address or localhost; 127.0.0.1 by default. */
export function hostFlag(value: string | undefined): string {
  const host = value ?? SERVE.flags.host.default;
  if (host !== 'localhost' && net.isIP(host) === 0) {
    throw new UsageError(`--host: "${host}" is not an IP address or localhost`);
  }
  return host;
}

function httpUrlFlag(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--${name}: "${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--${name}: "${value}" is not an http(s) URL`);
  }
  return url.href;
}

/** --users FILE: must exist and hold a JSON array; each customer's fields are the bank's to check. */
async function usersFlag(file: string): Promise<{ file: string; text: string; customers: unknown[] }> {
  if (file.trim() === '') throw new UsageError('--users: must not be empty');
  try {
    if (!(await stat(file)).isFile()) throw new UsageError(`--users: "${file}" is not a file`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--users: "${file}" does not exist or cannot be read`);
  }
  let parsed: unknown;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`--users: "${file}" cannot be read`);
  }
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `--users: "${file}" is not valid JSON (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  if (!Array.isArray(parsed))
    throw new UsageError(`--users: "${file}" must hold a JSON array of test customers`);
  return { file, text, customers: parsed };
}

/** Error codes of an import that mean the file's content is at fault (exit 2), not the profile. */
const INPUT_CODES = new Set(['BAD_ARGUMENT', 'KEY_INVALID']);

/**
 * Replaces the bank's customer directory with the --users file's customers, before any listener
 * answers. Content the bank refuses is a usage error naming --users, the file and the field.
 */
export async function importUsers(core: ConsoleCore, users: { file: string; text: string }): Promise<number> {
  const answer = await core.dispatch('bank.importCustomers', { text: users.text });
  if (answer.ok) return (answer.value as { imported: number }).imported;
  const { code, message, details } = answer.error;
  if (INPUT_CODES.has(code)) {
    throw new UsageError(`--users: "${users.file}": ${oneLine(message)}`);
  }
  throw new ConsoleError(code, `--users: "${users.file}": ${oneLine(message)}`, details);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** A listen error as a one-line usage error naming the flag, or undefined if it is not one. */
export function listenError(
  err: unknown,
  listener: { flag: string; port: number },
  host: string,
): UsageError | undefined {
  const code = err && typeof err === 'object' && 'code' in err ? (err as { code: unknown }).code : undefined;
  if (code === 'EADDRINUSE') {
    return new UsageError(
      `${listener.flag}: port ${listener.port} on ${host} is already in use (choose another, or 0 for any free port)`,
    );
  }
  if (code === 'EACCES') {
    return new UsageError(`${listener.flag}: not allowed to listen on port ${listener.port} on ${host}`);
  }
  if (code === 'EADDRNOTAVAIL') return new UsageError(`--host: ${host} is not an address of this machine`);
  return undefined;
}

/** Creates the profile folder (0700), or fails as a usage error naming --data-dir. */
export async function createDataDir(dir: string): Promise<void> {
  try {
    // 0700: the profile holds the encrypted vault and every recorded request.
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new UsageError(`--data-dir: cannot create "${dir}" (${reason})`);
  }
}

/** `dets-console serve`: runs until SIGINT/SIGTERM, then stops cleanly and exits 0. */
export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const options = await parseServeFlags(argv, io);
  const log = (line: string) => io.stderr(`dets-console serve: ${line}\n`);

  if (!isLoopbackAddress(options.host)) {
    log(
      `warning: --host ${options.host} is not a loopback address: anyone who can reach this machine ` +
        'can connect, and the access token in the URL is the only protection; the bank endpoints ' +
        `answer everyone who reaches them${options.tls ? '' : ', in plain HTTP (see --tls-cert)'}`,
    );
  }
  await createDataDir(options.dataDir);

  // Signal handlers go in before anything listens, so a stop during start-up is still clean.
  let stopSignal: string | undefined;
  const stopped = io.waitForStop().then((signal) => (stopSignal = signal));

  const core = await ownerCore(
    {
      dataDir: options.dataDir,
      host: 'browser',
      owner: 'serve',
      log,
      ...(options.serviceJwksUrl ? { serviceJwksUrl: options.serviceJwksUrl } : {}),
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    },
    stopped,
  );
  const started: StartedListener[] = [];
  // Listeners stop accepting and finish what is in flight (sandbox, bank, UI), then the core
  // closes the bank endpoints, the sandbox and the event store (flushed to disk).
  const shutdown = async () => {
    try {
      // The tunnel's client first: nothing new should arrive while the listeners drain.
      await core.tunnel.close().catch(() => undefined);
      for (const l of [...started].reverse()) await l.close().catch(() => undefined);
    } finally {
      await core.close();
    }
  };

  try {
    if (options.users) {
      const imported = await importUsers(core, options.users);
      log(`imported ${imported} test customer${imported === 1 ? '' : 's'} from ${options.users.file}`);
    }
    for (const listener of listenersFor(options)) {
      try {
        started.push(await listener.start(core, options));
      } catch (err) {
        // A damaged sandbox state costs the sandbox alone (issue 24 item 6): it says why and
        // stays unavailable until a recovery; the bank endpoints and the UI serve.
        if (listener.key === 'sandbox' && err instanceof ConsoleError && err.code === 'STATE_DAMAGED') {
          log(`the sandbox is not started: ${err.message}`);
          continue;
        }
        throw listenError(err, listener, options.host) ?? err;
      }
    }
  } catch (err) {
    await shutdown();
    throw err;
  }

  // Ready-line keys in DESIGN.md's order (ready, ui, bank, sandbox), whatever the start order.
  const urls: Partial<Record<ListenerKey, string>> = {};
  for (const key of READY_KEYS) {
    const l = started.find((s) => s.key === key);
    if (l) urls[key] = l.url;
  }
  const coreListeners: ListenerUrls = {};
  if (urls.bank) coreListeners.bank = urls.bank;
  if (urls.sandbox) coreListeners.sandbox = urls.sandbox;
  core.setListeners(coreListeners);

  // --tunnel: the ready line waits for it (up to 30 s); one that cannot be made exits 1.
  if (options.tunnel && stopSignal === undefined) {
    const made = await Promise.race([
      core.tunnel.start(options.tunnel).then(
        () => null,
        (err: unknown) => err,
      ),
      stopped.then(() => null),
    ]);
    if (made !== null) {
      await shutdown();
      if (made instanceof TunnelError) {
        log(made.message);
        return EXIT.FAILED;
      }
      if (made instanceof ConsoleError && made.code === 'BAD_ARGUMENT') throw new UsageError(made.message);
      throw made;
    }
  }
  let lastTunnelLog = '';
  core.events.on('tunnel.changed', (s) => {
    const t = s.tunnel;
    if (!t) return;
    const key = `${t.state} ${t.url ?? ''}`;
    if (key === lastTunnelLog) return;
    lastTunnelLog = key;
    if (t.state === 'up') log(`tunnel (${t.client}) up: ${t.url ?? ''}`);
    else if (t.state === 'down')
      log(
        `tunnel (${t.client}) down: ${t.last_error ?? 'the client exited'}; retrying${t.next_retry_at ? ` at ${t.next_retry_at}` : ''}`,
      );
  });
  const publicUrl = (await core.tunnel.status().catch(() => null))?.public_url ?? null;

  if (stopSignal === undefined) {
    if (options.json) {
      io.stdout(`${JSON.stringify({ ready: true, ...urls, ...(publicUrl ? { public: publicUrl } : {}) })}\n`);
    } else io.stdout(humanBanner(urls, options.dataDir, publicUrl));
    if (options.open && urls.ui) openInBrowser(urls.ui, log);
  }

  const signal = await stopped;
  log(`${signal}: stopping (finishing requests in flight)`);
  await shutdown();
  log('stopped');
  return EXIT.OK;
}

function humanBanner(
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
