/**
 * `dets-console sandbox`: the service simulator on its own, for a bank backend under
 * development or a CI job that needs a service to talk to (DESIGN.md "Sandbox service"). One core
 * for the profile (the sandbox's state lives in it), one listener; no UI, no access token: the
 * sandbox plays a public service, so its endpoints are as open as the real one's.
 *
 * DESIGN.md "Command line" fixes the interface: `[--data-dir DIR] [--host 127.0.0.1]
 * [--port 7302] [--json]`, port 0 = any free port, with --json exactly one ready line
 * `{"ready":true,"sandbox":"http://127.0.0.1:<port>"}` and nothing else on stdout, and
 * SIGINT/SIGTERM = stop accepting, finish in-flight requests, exit 0.
 */
import { ConsoleError } from '../../contract';
import type { SandboxListener } from '../../core/sandbox';
import { isLoopbackAddress } from '../../headless';
import { EXIT, dataDirFlag, fractionFlag, numberFlagOrDefault, parseFlags, type CliIo } from '../io';
import { SANDBOX } from '../table';
import { ownerCore } from './owner-core';
import { baseUrl, createDataDir, hostFlag, listenError } from './serve';

export interface SandboxCommandOptions {
  dataDir: string;
  host: string;
  port: number;
  json: boolean;
  /** --time-scale: the delivery ladder's waits and timeouts × F (issue 27). */
  timeScale: number;
}

/** Parses and checks every flag without side effects (no folder created, nothing bound). */
export function parseSandboxFlags(argv: string[], io: CliIo): SandboxCommandOptions {
  const { values } = parseFlags(argv, SANDBOX);
  return {
    dataDir: dataDirFlag(values['data-dir'], io, 'write'),
    host: hostFlag(values.host),
    port: numberFlagOrDefault(SANDBOX, 'port', values.port),
    json: values.json === true,
    timeScale: fractionFlag(SANDBOX, 'time-scale', values['time-scale']),
  };
}

/** `dets-console sandbox`: runs until SIGINT/SIGTERM, then stops cleanly and exits 0. */
export async function sandboxCommand(argv: string[], io: CliIo): Promise<number> {
  const options = parseSandboxFlags(argv, io);
  const log = (line: string) => io.stderr(`dets-console sandbox: ${line}\n`);

  if (!isLoopbackAddress(options.host)) {
    log(
      `warning: --host ${options.host} is not a loopback address: anyone who can reach this machine ` +
        'can onboard counterparties and make the sandbox call URLs of their choosing',
    );
  }
  await createDataDir(options.dataDir);

  // Signal handlers go in before anything listens, so a stop during start-up is still clean.
  let stopSignal: string | undefined;
  const stopped = io.waitForStop().then((signal) => (stopSignal = signal));

  // `sandbox` is a long-running owner of the profile: claimed before anything opens it.
  const core = await ownerCore(
    { dataDir: options.dataDir, host: 'cli', owner: 'sandbox', log, timeScale: options.timeScale },
    stopped,
  );
  let listener: SandboxListener;
  try {
    listener = await core.listenSandbox({ host: options.host, port: options.port });
  } catch (err) {
    await core.close().catch(() => undefined);
    const usage = listenError(err, { flag: '--port', port: options.port }, options.host);
    if (usage) throw usage;
    if (err instanceof ConsoleError && err.code === 'STATE_DAMAGED') {
      // One line; the core left the file as it was, and its message says what to do about it.
      log(`STATE_DAMAGED: ${oneLine(err.message)}`);
      return EXIT.FAILED;
    }
    throw err;
  }

  const url = baseUrl(listener.url);
  if (stopSignal === undefined) {
    if (options.json) io.stdout(`${JSON.stringify({ ready: true, sandbox: url })}\n`);
    else io.stdout(humanBanner(url, options.dataDir));
  }

  const signal = await stopped;
  log(`${signal}: stopping (finishing requests in flight)`);
  await listener.close();
  await core.close();
  log('stopped');
  return EXIT.OK;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** What a person needs to start: where it is, what it offers, one request to try, how to stop. */
export function humanBanner(url: string, dataDir: string): string {
  const body = JSON.stringify({
    jwk: { kty: 'RSA', alg: 'RS256', use: 'sig', kid: 'my-bank-key-1', n: '…', e: 'AQAB' },
    bank_auth_url: 'http://127.0.0.1:7301',
    bank_sender_url: 'http://127.0.0.1:7301',
    bank_receiver_url: 'http://127.0.0.1:7301',
  });
  return [
    'DETS sandbox service is running.',
    '',
    `  Base URL: ${url}`,
    '',
    '  The service (spec 4.1):',
    `    GET  ${url}/api/v1/.well-known/jwks.json`,
    `    POST ${url}/api/v1/counterparty/{counterparty_guid}/jwk/authenticate   (CX-Authorization)`,
    `    PUT  ${url}/api/v1/counterparty/{counterparty_guid}/jwk/{jwk_guid}     (CX-Authorization)`,
    `    POST ${url}/api/v1/counterparty/{counterparty_guid}/jwk                (CX-Authorization)`,
    `    GET  ${url}/api/v1/counterparty/{counterparty_guid}/jwk                (CX-Authorization)`,
    '',
    '  Sandbox controls (stand-ins for onboarding and business events):',
    `    POST ${url}/sandbox/v1/counterparties`,
    `    GET  ${url}/sandbox/v1/counterparties/{counterparty_guid}`,
    `    POST ${url}/sandbox/v1/counterparties/{counterparty_guid}/sign-in  (CX-Authorization)`,
    `    POST ${url}/sandbox/v1/counterparties/{counterparty_guid}/notify   {"event":"pay-in"}`,
    '',
    '  Onboard your bank with its public JWK (answers 201 {counterparty_guid, jwk_guid}):',
    `    curl -sS -X POST ${url}/sandbox/v1/counterparties \\`,
    "      -H 'Content-Type: application/json' \\",
    `      -d '${body}'`,
    '',
    `  Profile: ${dataDir}`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}
