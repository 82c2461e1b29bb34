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
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat } from 'node:fs/promises';
import net from 'node:net';
import { ConsoleError } from '../../contract';
import { PublicUrl } from '../../contract/schemas/tunnel';
import { firstIssueMessage } from '../../contract/zod-issues';
import { loadTlsFiles, parseTunnelTarget, TlsFileError, type TunnelSpec } from '../../core/tunnel';
import { type ConsoleCore, type ListenerUrls } from '../../core/console-core';
import { ownerCore } from './owner-core';
import { isLoopbackAddress, openInBrowser } from '../../headless';
import {
  EXIT,
  UsageError,
  dataDirFlag,
  fractionFlag,
  numberFlagOrDefault,
  parseFlags,
  type CliIo,
} from '../io';
import { SERVE } from '../table';
import { readyUrls, startListeners, type StartedListener } from './serve-listeners';
import type { ServeOptions } from './serve-options';
import { humanBanner, logTunnelChanges, startTunnel } from './serve-ready';
import { pgEventStore, storeFlag, teamGuard } from './serve-team';
import { RelayHub } from '../../core/team';

export type { ServeOptions } from './serve-options';
export { baseUrl, listenError } from './serve-listeners';

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
    team: values.team === true,
    timeScale: fractionFlag(SERVE, 'time-scale', values['time-scale']),
  };
  if (values.store !== undefined) options.store = storeFlag(values.store);
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
  // DESIGN.md "Team hub": off loopback a hub refuses to start without TLS.
  if (options.team && !isLoopbackAddress(host) && !options.tls)
    throw new UsageError(
      `--team: a hub on ${host} (off loopback) requires --tls-cert and --tls-key: member tokens must not cross the network in plain HTTP`,
    );
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

  if (!isLoopbackAddress(options.host) && !options.team) {
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
  // A hub's routes (issue 30 item 3): the bank relays through it, laptops connect at the UI's door.
  // With --store, route ids end in a tag of this hub: the team's list holds every hub's routes.
  const relay = options.team
    ? new RelayHub(options.store ? `-${randomBytes(3).toString('hex')}` : '')
    : undefined;

  const core = await ownerCore(
    {
      dataDir: options.dataDir,
      host: 'browser',
      owner: 'serve',
      log,
      ...(options.serviceJwksUrl ? { serviceJwksUrl: options.serviceJwksUrl } : {}),
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
      ...(options.store ? { eventStore: pgEventStore(options.store) } : {}),
      timeScale: options.timeScale,
      ...(relay ? { relay } : {}),
    },
    stopped,
  );
  const started: StartedListener[] = [];
  const closeAfter: (() => Promise<void>)[] = [];
  // Listeners stop accepting and finish what is in flight (sandbox, bank, UI), then the core
  // closes the bank endpoints, the sandbox and the event store (flushed to disk).
  const shutdown = async () => {
    try {
      // The tunnel's client first: nothing new should arrive while the listeners drain.
      await core.tunnel.close().catch(() => undefined);
      // Laptops' relay connections next: the UI listener's close waits for every socket.
      relay?.close();
      for (const l of [...started].reverse()) await l.close().catch(() => undefined);
    } finally {
      await core.close();
      for (const c of closeAfter) await c().catch(() => undefined);
    }
  };

  try {
    if (options.users) {
      const imported = await importUsers(core, options.users);
      log(`imported ${imported} test customer${imported === 1 ? '' : 's'} from ${options.users.file}`);
    }
    const team = relay ? await teamGuard(core, options, log, relay) : undefined;
    if (team) closeAfter.push(() => team.members.close());
    if (team?.routes) closeAfter.unshift(team.routes);
    await startListeners(core, options, started, log, team?.guard);
  } catch (err) {
    await shutdown();
    throw err;
  }

  const urls = readyUrls(started);
  const coreListeners: ListenerUrls = {};
  if (urls.bank) coreListeners.bank = urls.bank;
  if (urls.sandbox) coreListeners.sandbox = urls.sandbox;
  core.setListeners(coreListeners);

  // --tunnel: the ready line waits for it (up to 30 s); one that cannot be made exits 1.
  if (options.tunnel && stopSignal === undefined) {
    const failed = await startTunnel(core, options.tunnel, stopped, shutdown, log);
    if (failed !== null) return failed;
  }
  logTunnelChanges(core, log);
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
